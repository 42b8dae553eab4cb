import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A class with a `@Managed` property of each type the concrete setters serve (and a `TimeInterval` of
/// a date attribute, Xcode's scalar date).
final class SetterSample: NSManagedObject {
    @Managed var text: String?
    @Managed var word: String
    @Managed var small: Int16
    @Managed var medium: Int32
    @Managed var large: Int64
    @Managed var count: Int
    @Managed var ratio: Double
    @Managed var fraction: Float
    @Managed var flag: Bool
    @Managed var when: Date?
    @Managed var bytes: Data?
    @Managed var identifier: UUID?
    @Managed var link: URL?
    @Managed var amount: Decimal?
    @Managed var stamp: Double
}

/// The setters of `@Managed` attribute properties: each type's setter stores what `setValue(_:forKey:)`
/// stores, records the change as Core Data does, and the save writes it.
@Suite("Model classes: attribute setters")
struct ManagedSetterTests {
    static func model() -> NSManagedObjectModel {
        let sample = NSEntityDescription(name: "Sample", managedObjectClassName: NSStringFromClass(SetterSample.self))
        sample.properties = [
            NSAttributeDescription(name: "text", type: .stringAttributeType),
            NSAttributeDescription(name: "word", type: .stringAttributeType, optional: false, defaultValue: ""),
            NSAttributeDescription(name: "small", type: .integer16AttributeType, optional: false, defaultValue: 0),
            NSAttributeDescription(name: "medium", type: .integer32AttributeType, optional: false, defaultValue: 0),
            NSAttributeDescription(name: "large", type: .integer64AttributeType, optional: false, defaultValue: 0),
            NSAttributeDescription(name: "count", type: .integer64AttributeType, optional: false, defaultValue: 0),
            NSAttributeDescription(name: "ratio", type: .doubleAttributeType, optional: false, defaultValue: 0),
            NSAttributeDescription(name: "fraction", type: .floatAttributeType, optional: false, defaultValue: 0),
            NSAttributeDescription(name: "flag", type: .booleanAttributeType, optional: false, defaultValue: false),
            NSAttributeDescription(name: "when", type: .dateAttributeType),
            NSAttributeDescription(name: "bytes", type: .binaryDataAttributeType),
            NSAttributeDescription(name: "identifier", type: .UUIDAttributeType),
            NSAttributeDescription(name: "link", type: .URIAttributeType),
            NSAttributeDescription(name: "amount", type: .decimalAttributeType),
            NSAttributeDescription(name: "stamp", type: .dateAttributeType, optional: false, defaultValue: Date(timeIntervalSinceReferenceDate: 0)),
        ]
        return NSManagedObjectModel(entities: [sample])
    }

    @Test("each setter stores the value, the save writes it, a fetch reads it back")
    func settersRoundTrip() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        let id = UUID()
        let sample = SetterSample(context: context)
        sample.text = "Кефир 417"
        sample.word = "e\u{301}"
        sample.small = -12
        sample.medium = 70_000
        sample.large = 1 << 40
        sample.count = 42
        sample.ratio = 0.25
        sample.fraction = 1.5
        sample.flag = true
        sample.when = Date(timeIntervalSinceReferenceDate: 1_000)
        sample.bytes = Data([1, 2, 3])
        sample.identifier = id
        sample.link = URL(string: "https://example.com/a")
        sample.amount = Decimal(string: "12.5")
        sample.stamp = 86_400
        #expect(sample.value(forKey: "medium") as? Int32 == 70_000)
        #expect(sample.value(forKey: "stamp") as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
        try context.save()

        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let read = try #require(try reader.fetch(NSFetchRequest<SetterSample>(entityName: "Sample")).first)
            #expect(read.text == "Кефир 417")
            #expect(read.word == "\u{e9}")  // stored composed (NFC), as every string
            #expect(read.small == -12)
            #expect(read.medium == 70_000)
            #expect(read.large == 1 << 40)
            #expect(read.count == 42)
            #expect(read.ratio == 0.25)
            #expect(read.fraction == 1.5)
            #expect(read.flag)
            #expect(read.when == Date(timeIntervalSinceReferenceDate: 1_000))
            #expect(read.bytes == Data([1, 2, 3]))
            #expect(read.identifier == id)
            #expect(read.link == URL(string: "https://example.com/a"))
            #expect(read.amount == Decimal(string: "12.5"))
            #expect(read.stamp == 86_400)
        }
    }

    @Test("a setter on a saved object records the change; setting the same value again records none")
    func settersRecordChanges() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let sample = SetterSample(context: context)
        sample.text = "a"
        sample.medium = 1
        try context.save()
        #expect(!sample.hasChanges)
        sample.text = "a"
        sample.medium = 1
        #expect(!sample.isUpdated)
        sample.text = nil
        sample.medium = 2
        #expect(sample.isUpdated)
        #expect(context.updatedObjects.contains(sample))
        #expect(sample.changedValues().keys.sorted() == ["medium", "text"])
        // An Int32 attribute set out of its range keeps the value for validation to reject at save.
        sample.setValue(Int64(1) << 40, forKey: "medium")
        #expect(throws: (any Error).self) { try context.save() }
    }
}

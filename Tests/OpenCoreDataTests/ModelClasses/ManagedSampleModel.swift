import Foundation
import OpenCoreData

// Model classes for the @Managed tests, written as Xcode's "Manual/None" codegen writes them: the class
// in one declaration, its properties and to-many accessors in an extension (Xcode's
// +CoreDataProperties.swift), with `@NSManaged` replaced by `@Managed` / `@ManagedAccessor` and the
// `@objc(...)` lines removed.

/// A transformable attribute's custom type (Codable).
struct Colour: Codable, Hashable {
    var red: Double, green: Double, blue: Double
}

/// A transformable attribute's custom type (an NSCoding class).
final class Badge: NSObject, NSCoding {
    let title: String
    init(title: String) { self.title = title }
    init?(coder: NSCoder) {
        guard let title = coder.decodeObject(forKey: "title") as? String else { return nil }
        self.title = title
    }
    func encode(with coder: NSCoder) { coder.encode(title as NSString, forKey: "title") }
    override func isEqual(_ object: Any?) -> Bool { (object as? Badge)?.title == title }
    override var hash: Int { title.hashValue }
}

final class ManagedSample: NSManagedObject {}

extension ManagedSample {
    @nonobjc class func fetchRequest() -> NSFetchRequest<ManagedSample> {
        NSFetchRequest<ManagedSample>(entityName: "Sample")
    }

    @Managed var text: String?
    @Managed var requiredText: String
    @Managed var small: Int16
    @Managed var medium: Int32
    @Managed var large: Int64
    @Managed var boxed: NSNumber?
    @Managed var real: Double
    @Managed var single: Float
    @Managed var flag: Bool
    @Managed var amount: Decimal?
    @Managed var price: NSDecimalNumber?
    @Managed var when: Date?
    @Managed var blob: Data?
    @Managed var identifier: UUID?
    @Managed var link: URL?
    @Managed var colour: Colour?
    @Managed var badge: Badge?
    @Managed var keeper: ManagedKeeper?
    @Managed var tags: NSSet?
    @Managed var steps: NSOrderedSet?
}

// MARK: Generated accessors for tags
extension ManagedSample {
    @ManagedAccessor func addToTags(_ value: ManagedTag)
    @ManagedAccessor func removeFromTags(_ value: ManagedTag)
    @ManagedAccessor func addToTags(_ values: NSSet)
    @ManagedAccessor func removeFromTags(_ values: NSSet)
}

// MARK: Generated accessors for steps
extension ManagedSample {
    @ManagedAccessor func insertIntoSteps(_ value: ManagedStep, at idx: Int)
    @ManagedAccessor func removeFromSteps(at idx: Int)
    @ManagedAccessor func insertIntoSteps(_ values: [ManagedStep], at indexes: NSIndexSet)
    @ManagedAccessor func removeFromSteps(at indexes: NSIndexSet)
    @ManagedAccessor func replaceSteps(at idx: Int, with value: ManagedStep)
    @ManagedAccessor func replaceSteps(at indexes: NSIndexSet, with values: [ManagedStep])
    @ManagedAccessor func addToSteps(_ value: ManagedStep)
    @ManagedAccessor func removeFromSteps(_ value: ManagedStep)
    @ManagedAccessor func addToSteps(_ values: NSOrderedSet)
    @ManagedAccessor func removeFromSteps(_ values: NSOrderedSet)
}

/// The to-one side: a keeper of samples (one-to-many).
final class ManagedKeeper: NSManagedObject {
    @Managed var name: String?
    @Managed var samples: Set<ManagedSample>
}

/// A many-to-many with samples.
final class ManagedTag: NSManagedObject {
    @Managed var name: String?
    @Managed var samples: NSSet?
}

/// The members of an ordered to-many.
final class ManagedStep: NSManagedObject {
    @Managed var name: String?
    @Managed var sample: ManagedSample?
}

enum ManagedSampleModel {
    /// Sample (every attribute type, a to-one, a many-to-many and an ordered to-many), Keeper, Tag, Step.
    static func make() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil) -> NSAttributeDescription {
            NSAttributeDescription(name: name, type: type, optional: optional, defaultValue: defaultValue)
        }
        let colour = attribute("colour", .transformableAttributeType)
        let badge = attribute("badge", .transformableAttributeType)
        let sample = NSEntityDescription(name: "Sample", managedObjectClassName: NSStringFromClass(ManagedSample.self), properties: [
            attribute("text", .stringAttributeType),
            attribute("requiredText", .stringAttributeType, optional: false, defaultValue: ""),
            attribute("small", .integer16AttributeType),
            attribute("medium", .integer32AttributeType),
            attribute("large", .integer64AttributeType),
            attribute("boxed", .integer32AttributeType),
            attribute("real", .doubleAttributeType),
            attribute("single", .floatAttributeType),
            attribute("flag", .booleanAttributeType),
            attribute("amount", .decimalAttributeType),
            attribute("price", .decimalAttributeType),
            attribute("when", .dateAttributeType),
            attribute("blob", .binaryDataAttributeType),
            attribute("identifier", .UUIDAttributeType),
            attribute("link", .URIAttributeType),
            colour, badge,
            NSRelationshipDescription(name: "keeper", destination: "Keeper", inverse: "samples", deleteRule: .nullifyDeleteRule, maxCount: 1),
            NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "samples", toMany: true, deleteRule: .nullifyDeleteRule),
            NSRelationshipDescription(name: "steps", destination: "Step", inverse: "sample", toMany: true, ordered: true, deleteRule: .cascadeDeleteRule),
        ])
        let keeper = NSEntityDescription(name: "Keeper", managedObjectClassName: "ManagedKeeper", properties: [
            attribute("name", .stringAttributeType),
            NSRelationshipDescription(name: "samples", destination: "Sample", inverse: "keeper", toMany: true, deleteRule: .nullifyDeleteRule),
        ])
        let tag = NSEntityDescription(name: "Tag", managedObjectClassName: "ManagedTag", properties: [
            attribute("name", .stringAttributeType),
            NSRelationshipDescription(name: "samples", destination: "Sample", inverse: "tags", toMany: true, deleteRule: .nullifyDeleteRule),
        ])
        let step = NSEntityDescription(name: "Step", managedObjectClassName: "ManagedStep", properties: [
            attribute("name", .stringAttributeType),
            NSRelationshipDescription(name: "sample", destination: "Sample", inverse: "steps", deleteRule: .nullifyDeleteRule, maxCount: 1),
        ])
        return NSManagedObjectModel(entities: [sample, keeper, tag, step])
    }
}

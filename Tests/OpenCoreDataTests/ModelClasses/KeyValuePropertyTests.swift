import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// A class whose app code reads properties by name, as Core Data apps do with `@objc` properties: a
/// computed section key, a stored property that is not in the model, and a read-only one.
class KVPerson: NSManagedObject {
    @Managed var name: String?
    @Managed var age: Int64
    /// Core Data apps write `@objc var firstInitial: String` for a controller's `sectionNameKeyPath`.
    @KeyValue var firstInitial: String { String((name ?? "?").prefix(1)).uppercased() }
    @KeyValue var nickname: String? = nil
    @KeyValue var decade: Int {
        get { Int(age) / 10 * 10 }
        set { age = Int64(newValue) }
    }
    @KeyValue let kind = "person"
}

/// A subclass entity: it inherits the `@KeyValue` properties of its class's superclass.
final class KVStudent: KVPerson {}

/// Records the sections a controller reports.
private final class SectionRecorder: NSFetchedResultsControllerDelegate {
    var sectionChanges: [(NSFetchedResultsChangeType, String)] = []
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        sectionChanges.append((type, sectionInfo.name))
    }
}

/// Issue 32 B5: properties an app marked `@objc` for key-value access stay reachable by their names after
/// `@objc` → `@KeyValue` (docs/ModelClasses.md, "Properties read by name").
@Suite("Model classes: @KeyValue properties")
struct KeyValuePropertyTests {
    static func model() -> NSManagedObjectModel {
        let person = NSEntityDescription(name: "KVPerson", managedObjectClassName: NSStringFromClass(KVPerson.self), properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSAttributeDescription(name: "age", type: .integer64AttributeType, optional: false, defaultValue: 0),
        ])
        let student = NSEntityDescription(name: "KVStudent", managedObjectClassName: NSStringFromClass(KVStudent.self), properties: [])
        person.subentities = [student]
        return NSManagedObjectModel(entities: [person, student])
    }

    static func people(_ context: NSManagedObjectContext) -> [KVPerson] {
        [("bea", 31), ("Ann", 25), ("carl", 47), ("Bob", 52), ("anna", 19)].map { name, age in
            let p = KVPerson(context: context)
            p.name = name
            p.age = Int64(age)
            return p
        }
    }

    @Test func valueForKeyReadsAndSetValueWritesThem() throws {
        let store = TemporaryStore(); defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let p = KVPerson(context: context)
        p.name = "zoe"
        p.age = 34
        #expect(p.value(forKey: "firstInitial") as? String == "Z")
        #expect(p.value(forKeyPath: "firstInitial.length") as? Int == 1)
        #expect(p.value(forKey: "nickname") == nil)
        p.setValue("Z", forKey: "nickname")
        #expect(p.nickname == "Z")
        #expect(p.value(forKey: "nickname") as? String == "Z")
        p.setValue(nil, forKey: "nickname")
        #expect(p.nickname == nil)
        p.setValue(NSNumber(value: 60), forKey: "decade")
        #expect(p.age == 60, "the setter ran")
        #expect(p.value(forKey: "decade") as? Int == 60)
        #expect(p.value(forKey: "kind") as? String == "person")
        let student = KVStudent(context: context)
        student.name = "yann"
        #expect(student.value(forKey: "firstInitial") as? String == "Y", "a subclass inherits them")
    }

    @Test func badWritesAndUnknownKeysAreErrorsNamingTheKey() throws {
        let store = TemporaryStore(); defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let p = KVPerson(context: context)
        #expect { try p.setValidatedValue("x", forKey: "firstInitial") } throws: { "\($0)".contains("firstInitial is a read-only @KeyValue property") }
        #expect { try p.setValidatedValue(3, forKey: "nickname") } throws: {
            "\($0)".contains("Int is not a Optional<String>, the type of nickname of class")
        }
        #expect(p.nickname == nil, "nothing was written")
        #expect { try p.validatedValue(forKey: "initial") } throws: {
            "\($0)".contains("the entity KVPerson is not key value coding-compliant for the key \"initial\"")
        }
    }

    @Test func inMemorySortsAndPredicatesReadThem() throws {
        let store = TemporaryStore(); defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let people = Self.people(context)
        let sorted = people.sorted(using: [NSSortDescriptor(key: "firstInitial", ascending: false), NSSortDescriptor(key: "age", ascending: true)])
        #expect(sorted.map(\.name) == ["carl", "bea", "Bob", "anna", "Ann"])
        let predicate = NSPredicate(format: "firstInitial == %@ AND decade >= 20", "A")
        #expect(people.filter { predicate.evaluate(with: $0) }.map(\.name) == ["Ann"])
        // The compiled form (a key compared with a constant) and the general evaluator agree.
        #expect(people.filtered(using: NSPredicate(format: "decade == 50")).map(\.name) == ["Bob"])
        #expect(people.filtered(using: NSPredicate(format: "decade == 50 OR firstInitial IN {'C'}")).map(\.name) == ["carl", "Bob"])
    }

    @Test func theSQLiteStoreRefusesThemInAFetchAsCoreDataDoes() throws {
        let store = TemporaryStore(); defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        _ = Self.people(context)
        try context.save()
        let request = NSFetchRequest<KVPerson>(entityName: "KVPerson")
        request.predicate = NSPredicate(format: "firstInitial == 'A'")
        #expect { try context.fetch(request) } throws: { "\($0)".contains("firstInitial") }
    }

    /// Apple's common case: a controller sectioned by a computed initial, sorted by the name it derives
    /// from. Sections are computed in memory, and an edit that changes the initial moves the object.
    @Test func aControllerSectionsByAComputedKeyPath() throws {
        let store = TemporaryStore(); defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        for (name, age) in [("Ann", 25), ("Bob", 52), ("Bea", 31), ("Cid", 47)] {
            let p = KVPerson(context: context)
            p.name = name
            p.age = Int64(age)
        }
        try context.save()
        let request = NSFetchRequest<KVPerson>(entityName: "KVPerson")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "firstInitial", cacheName: nil)
        let recorder = SectionRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.sections?.map(\.name) == ["A", "B", "C"])
        #expect(controller.sections?.map(\.numberOfObjects) == [1, 2, 1])
        let cid = try #require(controller.fetchedObjects?.last)
        cid.name = "Dan"
        context.processPendingChanges()
        #expect(controller.sections?.map(\.name) == ["A", "B", "D"])
        #expect(recorder.sectionChanges.map { "\($0.0.rawValue)\($0.1)" } == ["\(NSFetchedResultsChangeType.delete.rawValue)C", "\(NSFetchedResultsChangeType.insert.rawValue)D"])
        #expect(throws: (any Error).self) {
            try NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "nickname2", cacheName: nil).performFetch()
        }
    }
}

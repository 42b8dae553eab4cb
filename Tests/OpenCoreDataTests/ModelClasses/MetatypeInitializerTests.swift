import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// A class of Core Data code that constructs objects through `Self`, as published libraries do.
final class MetaPerson: NSManagedObject {
    @Managed var name: String?
}

/// A subclass entity: `Self(context:)` called on it makes one of its own.
final class MetaStudent: NSManagedObject {
    @Managed var name: String?
    @Managed var school: String?
}

/// Core Data's `init(context:)` reached through `Self` in a protocol extension constrained to
/// `NSManagedObject` (a library's "managed" protocol).
protocol MetaManaged {}
extension MetaManaged where Self: NSManagedObject {
    static func make(in context: NSManagedObjectContext) -> Self { Self(context: context) }
}
extension MetaPerson: MetaManaged {}
extension MetaStudent: MetaManaged {}

/// A generic helper calling `T(context:)` on a metatype.
func makeObject<T: NSManagedObject>(_ type: T.Type, in context: NSManagedObjectContext) -> T { type.init(context: context) }

/// The stack helpers libraries declare in extensions, reaching the required initializers through `self`.
extension NSPersistentStoreCoordinator {
    static func inMemory(_ model: NSManagedObjectModel) throws -> Self {
        let coordinator = self.init(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        return coordinator
    }
}
extension NSManagedObjectContext {
    static func privateQueue(on coordinator: NSPersistentStoreCoordinator) -> Self {
        let context = Self(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
extension NSPersistentContainer {
    static func named(_ name: String, model: NSManagedObjectModel) -> Self { self.init(name: name, managedObjectModel: model) }
}
extension NSManagedObjectModel {
    static func read(_ url: URL) -> Self? { Self(contentsOf: url) }
}

/// Subclasses of each: a metatype of the subclass makes the subclass.
final class MetaCoordinator: NSPersistentStoreCoordinator, @unchecked Sendable {}
final class MetaContext: NSManagedObjectContext, @unchecked Sendable {}
final class MetaContainer: NSPersistentContainer, @unchecked Sendable {}
final class MetaModel: NSManagedObjectModel, @unchecked Sendable {}

/// Issue 48 item 3: Core Data's initializers are Objective-C initializers, which a metatype reaches
/// (`self.init(managedObjectModel:)`, `Self(context:)`); here they are `required`. `NSManagedObject()`
/// compiles and gives an object of no entity, as Core Data's does.
@Suite("Model classes: initializers reached through Self")
struct MetatypeInitializerTests {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [
            NSEntityDescription(name: "MetaPerson", managedObjectClassName: NSStringFromClass(MetaPerson.self), properties: [
                NSAttributeDescription(name: "name", type: .stringAttributeType),
            ]),
            NSEntityDescription(name: "MetaStudent", managedObjectClassName: NSStringFromClass(MetaStudent.self), properties: [
                NSAttributeDescription(name: "name", type: .stringAttributeType),
                NSAttributeDescription(name: "school", type: .stringAttributeType),
            ]),
        ])
    }

    @Test func initContextThroughSelfInsertsAnObjectOfTheClassEntity() throws {
        let coordinator = try NSPersistentStoreCoordinator.inMemory(Self.model())
        let context = NSManagedObjectContext.privateQueue(on: coordinator)
        try context.performAndWait {
            let person = MetaPerson.make(in: context)
            person.name = "Ada"
            let student = MetaStudent.make(in: context)
            student.school = "Cambridge"
            let other = makeObject(MetaPerson.self, in: context)
            other.name = "Alan"
            #expect(person.entity.name == "MetaPerson" && student.entity.name == "MetaStudent")
            #expect(context.insertedObjects.count == 3)
            try context.save()
            let names = try context.fetch(NSFetchRequest<MetaPerson>(entityName: "MetaPerson")).compactMap(\.name).sorted()
            #expect(names == ["Ada", "Alan"])
            #expect(try context.count(for: NSFetchRequest<MetaStudent>(entityName: "MetaStudent")) == 1)
        }
    }

    @Test func stackInitializersThroughSelfMakeTheSubclass() throws {
        let model = Self.model()
        let coordinator = try MetaCoordinator.inMemory(model)
        #expect(type(of: coordinator) == MetaCoordinator.self && coordinator.persistentStores.count == 1)
        let context = MetaContext.privateQueue(on: coordinator)
        #expect(type(of: context) == MetaContext.self && context.concurrencyType == .privateQueueConcurrencyType)
        let container = MetaContainer.named("Meta", model: model)
        #expect(type(of: container) == MetaContainer.self && container.name == "Meta" && container.managedObjectModel === model)
        let base = NSPersistentContainer.named("Base", model: model)
        #expect(type(of: base) == NSPersistentContainer.self)
    }

    @Test func modelContentsOfThroughSelf() throws {
        let url = try #require(Bundle.module.url(forResource: "Zoo", withExtension: "xcdatamodeld"))
        let model = try #require(MetaModel.read(url))
        #expect(type(of: model) == MetaModel.self)
        #expect(model.entitiesByName["Animal"] != nil)
        #expect(NSManagedObjectModel.read(url.appendingPathComponent("missing")) == nil, "nil, as init?(contentsOf:) gives")
    }

    /// Core Data: "Failed to call designated initializer on NSManagedObject class" (logged), and an object
    /// with no entity, in no context.
    @Test func plainInitGivesAnObjectOfNoEntity() {
        let person = MetaPerson()
        #expect(person.entity.name == nil)
        #expect(person.entity.properties.isEmpty && person.entity.managedObjectModel == nil)
        #expect(person.managedObjectContext == nil)
        #expect(!person.isInserted && !person.hasChanges)
        let plain = NSManagedObject()
        #expect(plain.entity.name == nil && plain.managedObjectContext == nil)
    }
}

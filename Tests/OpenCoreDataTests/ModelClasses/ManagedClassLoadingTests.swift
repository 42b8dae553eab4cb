import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A class whose property has the wrong type for its attribute.
final class MisfitWrongType: NSManagedObject {
    @Managed var name: Int16
}

/// A class with a property its entity lacks.
final class MisfitMissing: NSManagedObject {
    @Managed var name: String?
    @Managed var nickname: String?
}

/// A class that declares a to-many as a to-one, and an accessor for a relationship that is not there.
final class MisfitRelationships: NSManagedObject {
    @Managed var friends: MisfitRelationships?
    @ManagedAccessor func addToEnemies(_ value: MisfitRelationships)
}

/// Loading a model: each entity finds its class, and each class's @Managed members are checked against
/// the entity then. What does not fit is a warning, never a failed load (the class may describe another
/// version of the model, as in Core Data); the access traps (OlderModelVersionTests).
@Suite("Model classes: loading")
struct ManagedClassLoadingTests {
    private func model(_ className: String, _ properties: [NSPropertyDescription]) -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [NSEntityDescription(name: "Thing", managedObjectClassName: className, properties: properties)])
    }

    /// The warnings of a model that loads.
    private func loadWarnings(_ model: NSManagedObjectModel) throws -> String {
        _ = try NSPersistentStoreCoordinator(validatingModel: model)
        return model.classWarnings.joined(separator: "; ")
    }

    @Test func aPropertyOfTheWrongTypeIsAWarningAtLoad() throws {
        let message = try loadWarnings(model(NSStringFromClass(MisfitWrongType.self), [NSAttributeDescription(name: "name", type: .stringAttributeType)]))
        #expect(message.contains("MisfitWrongType"), "names the class: \(message)")
        #expect(message.contains("name: Int16"), "names the property and its type: \(message)")
        #expect(message.contains("entity Thing"), "names the entity: \(message)")
        #expect(message.contains("declare it String?"), "says what fits: \(message)")
        #expect(message.contains("accessing the property on an object of this model traps"), "\(message)")
    }

    @Test func aPropertyTheEntityLacksIsAWarningAtLoad() throws {
        let message = try loadWarnings(model("MisfitMissing", [NSAttributeDescription(name: "name", type: .stringAttributeType)]))
        #expect(message.contains("MisfitMissing") && message.contains("nickname") && message.contains("entity Thing has no property nickname"), "\(message)")
        #expect(!message.contains("@Managed name"), "the fitting property is not reported: \(message)")
    }

    @Test func relationshipMisfitsAreWarningsAtLoad() throws {
        let message = try loadWarnings(model("MisfitRelationships", [
            NSRelationshipDescription(name: "friends", destination: "Thing", inverse: "friends", toMany: true),
        ]))
        #expect(message.contains("friends: MisfitRelationships?") && message.contains("to-many relationship to Thing: declare it NSSet?"), "\(message)")
        #expect(message.contains("addToEnemies(_:)") && message.contains("has no property Enemies"), "\(message)")
    }

    /// The misfit's fitting properties work; the misfit itself traps only where it is accessed.
    @Test func aClassWithAMisfitStillReadsWhatFits() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(model("MisfitMissing", [NSAttributeDescription(name: "name", type: .stringAttributeType)]))
        let thing = MisfitMissing(context: container.viewContext)
        thing.name = "fits"
        try container.viewContext.save()
        #expect(try container.viewContext.fetch(NSFetchRequest<MisfitMissing>(entityName: "Thing")).map(\.name) == ["fits"])
    }

    /// Every @Managed class of this suite fits the entity it is made for.
    @Test func fittingClassesLoad() throws {
        for model in [ManagedSampleModel.make(), ZooModel.make()] {
            _ = try NSPersistentStoreCoordinator(validatingModel: model)
            #expect(model.classWarnings.isEmpty, "\(model.classWarnings)")
        }
    }

    /// A class that is not found gives plain NSManagedObject objects and a warning, as Core Data does.
    @Test func aClassNotFoundGivesNSManagedObject() throws {
        let model = model("NoSuchClassAnywhere", [NSAttributeDescription(name: "name", type: .stringAttributeType)])
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(model)
        #expect(model.classWarnings.count == 1)
        #expect(model.classWarnings.first?.contains("entity Thing: no class named NoSuchClassAnywhere") == true, "\(model.classWarnings)")
        let object = NSEntityDescription.insertNewObject(forEntityName: "Thing", into: container.viewContext)
        #expect(type(of: object) == NSManagedObject.self)
        object.setValue("still works", forKey: "name")
        #expect(object.value(forKey: "name") as? String == "still works")
    }

    /// The module of a SwiftPM resource bundle is where a module-less class name is looked up first.
    @Test func modulesOfAResourceBundle() {
        #expect(ManagedClasses.modules(forModelAt: URL(fileURLWithPath: "/x/.build/debug/OpenCoreData_OpenCoreDataTests.resources/Zoo.xcdatamodeld"))
            .prefix(1) == ["OpenCoreDataTests"])
        #expect(ManagedClasses.modules(forModelAt: URL(fileURLWithPath: "/x/my_pkg_App.bundle/Zoo.xcdatamodeld")).prefix(2) == ["pkg_App", "App"])
        #expect(ManagedClasses.modules(forModelAt: URL(fileURLWithPath: "/tmp/Zoo.xcdatamodeld")).isEmpty)
    }

    /// Seed 003's model as Xcode wrote it, from the test target's resources, with the @Managed classes
    /// of OpenCoreDataTesting (`representedClassName="Animal"`): insert, save, refetch, walk.
    @Test func theZooModelFileWithManagedClasses() throws {
        let model = try #require(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(model)
        #expect(model.classWarnings.isEmpty, "\(model.classWarnings)")
        let context = container.viewContext
        #expect(NSEntityDescription.insertNewObject(forEntityName: "Zoo", into: context) is Zoo)
        context.rollback()

        let seeded = ZooModel.seed(context)
        let bat = try #require(seeded.animals["Pygmy Fruit-eating Bat"])
        #expect(bat.classification?.family == "Phyllostomidae")
        #expect(bat.zoos.count == 3 && bat.zoos.allSatisfy { $0.animals.contains(bat) })
        let manatee = try #require(seeded.animals["West Indian Manatee"])
        let sanDiego = try #require(seeded.zoos["San Diego Zoo"])
        manatee.addToZoos(sanDiego)
        #expect(sanDiego.animals.contains(manatee))
        manatee.removeFromZoos(NSSet(object: sanDiego))
        #expect(!sanDiego.animals.contains(manatee))
        sanDiego.addToAnimals(NSSet(object: manatee))
        #expect(manatee.zoos.contains(sanDiego))
        try context.save()

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let request = ZooModel.tableRequest()
            let animals = try other.fetch(request)
            #expect(animals.map { $0.commonName ?? "?" } == ["Pygmy Fruit-eating Bat", "Geoffroy’s Spider Monkey", "Mantled Howler", "West Indian Manatee"])
            let monkeys = try #require(animals.first { $0.commonName == "Mantled Howler" }?.classification)
            #expect(monkeys.order == "Primates")
            #expect(Set(monkeys.animals.map { $0.commonName ?? "?" }) == ["Mantled Howler", "Geoffroy’s Spider Monkey"])
            let manatee = try #require(animals.last)
            #expect(Set(manatee.zoos.map { $0.name ?? "?" }) == ["Lowry Park Zoo", "San Diego Zoo"])
            let zoo = try #require(manatee.zoos.first { $0.name == "San Diego Zoo" })
            #expect(zoo.animals.count == 4 && zoo.animals.allSatisfy { $0.zoos.contains(zoo) })
            // Typed writes in this context keep inverses too, and save.
            zoo.removeFromAnimals(manatee)
            #expect(!manatee.zoos.contains(zoo))
            manatee.classification = monkeys
            #expect(monkeys.animals.contains(manatee))
            try other.save()
        }
        context.refreshAllObjects()
        #expect(manatee.classification?.order == "Primates")
        #expect(!manatee.zoos.contains(sanDiego))
    }
}

/// A car (issue 32, B.8: a subclass of its own entity with no @Managed property of its own).
class PortedCar: NSManagedObject {
    @Managed var make: String?
}

/// A boat, whose entity only one test loads (`entity()`).
final class PortedBoat: NSManagedObject {
    @Managed var hull: String?
}

/// A class that declares no typed `fetchRequest()` of its own.
final class PortedRaft: NSManagedObject {
    @Managed var deck: String?
}

/// A subclass that declares nothing: found by its name without module, through its superclass's module.
final class PortedSportCar: PortedCar {}

@Suite("Model classes: found as Core Data finds them")
struct ManagedClassLookupTests {
    private func carModel() -> NSManagedObjectModel {
        let car = NSEntityDescription(name: "Car", managedObjectClassName: "PortedCar",
                                      properties: [NSAttributeDescription(name: "make", type: .stringAttributeType)])
        let sport = NSEntityDescription(name: "SportCar", managedObjectClassName: "PortedSportCar")
        sport.superentity = car
        return NSManagedObjectModel(entities: [car, sport])
    }

    @Test func aSubclassWithoutManagedPropertiesIsFoundByItsName() throws {
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: carModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let car = NSEntityDescription.insertNewObject(forEntityName: "SportCar", into: context)
            #expect(car is PortedSportCar)
            (car as? PortedCar)?.make = "Lotus"
            try context.save()
            let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car"))
            #expect(fetched.count == 1 && fetched[0] is PortedSportCar)
        }
    }

    @Test func classFromStringFindsAnEntitysClassByTheNameTheModelGives() throws {
        let model = carModel()
        _ = try NSPersistentStoreCoordinator(validatingModel: model)
        for (entity, cls) in [("Car", PortedCar.self), ("SportCar", PortedSportCar.self)] as [(String, AnyClass)] {
            let name = try #require(model.entitiesByName[entity]?.managedObjectClassName)
            #expect(NSClassFromString(name) == cls, "\(name)")
        }
        #expect(NSClassFromString(NSStringFromClass(PortedCar.self)) == PortedCar.self)
        #expect(NSClassFromString("NoSuchClassAnywhere") == nil)
    }

    /// (Its own class: tests run in parallel, and `entity()` answers for the model that loaded last.)
    @Test func theClassKnowsItsEntity() throws {
        let boat = NSEntityDescription(name: "Boat", managedObjectClassName: "PortedBoat",
                                       properties: [NSAttributeDescription(name: "hull", type: .stringAttributeType)])
        let model = NSManagedObjectModel(entities: [boat])
        _ = try NSPersistentStoreCoordinator(validatingModel: model)
        #expect(PortedBoat.entity() === boat)
        #expect(PortedBoat.entity().name == "Boat")
    }

    /// `NSManagedObject.fetchRequest()`, inherited by a class that declares no typed one of its own.
    @Test func theClassFetchRequestFetchesItsEntity() throws {
        let raft = NSEntityDescription(name: "Raft", managedObjectClassName: NSStringFromClass(PortedRaft.self),
                                       properties: [NSAttributeDescription(name: "deck", type: .stringAttributeType)])
        let store = TemporaryStore(); defer { store.cleanUp() }
        let context = try store.container(NSManagedObjectModel(entities: [raft])).viewContext
        PortedRaft(context: context).deck = "teak"
        try context.save()
        let request = PortedRaft.fetchRequest()
        #expect(request.entityName == "Raft")
        let rafts = try context.fetch(request)
        #expect(rafts.count == 1 && (rafts.first as? PortedRaft)?.deck == "teak")
    }
}

@Suite("Model: attribute types in their Swift form")
struct AttributeTypeFormTests {
    @Test func typeAndAttributeTypeAreOneValue() throws {
        let pairs: [(NSAttributeDescription.AttributeType, NSAttributeType)] = [
            (.undefined, .undefinedAttributeType), (.integer16, .integer16AttributeType), (.integer32, .integer32AttributeType),
            (.integer64, .integer64AttributeType), (.decimal, .decimalAttributeType), (.double, .doubleAttributeType),
            (.float, .floatAttributeType), (.string, .stringAttributeType), (.boolean, .booleanAttributeType),
            (.date, .dateAttributeType), (.binaryData, .binaryDataAttributeType), (.uuid, .UUIDAttributeType),
            (.uri, .URIAttributeType), (.transformable, .transformableAttributeType), (.objectID, .objectIDAttributeType),
        ]
        for (swift, legacy) in pairs {
            let a = NSAttributeDescription()
            a.type = swift
            #expect(a.attributeType == legacy)
            a.attributeType = legacy
            #expect(a.type == swift)
        }
        // A model made with `type` stores what it says.
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let stamp = NSAttributeDescription()
        stamp.name = "stamp"
        stamp.type = .date
        let model = NSManagedObjectModel(entities: [NSEntityDescription(name: "Event", properties: [stamp])])
        let context = try store.container(model).viewContext
        let date = Date(timeIntervalSinceReferenceDate: 1234.5)
        NSEntityDescription.insertNewObject(forEntityName: "Event", into: context).setValue(date, forKey: "stamp")
        try context.save()
        let read = try store.container(NSManagedObjectModel(entities: [NSEntityDescription(name: "Event", properties: [{
            let a = NSAttributeDescription(); a.name = "stamp"; a.type = .date; return a }()])]))
            .viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Event"))
        #expect(read.first?.value(forKey: "stamp") as? Date == date)
    }
}

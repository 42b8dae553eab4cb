import Foundation
@testable import OpenCoreData
import Testing
import OpenCoreDataTesting

/// Bad key paths across relationships fail the fetch with a clear error: the entity the key path starts
/// from, where it failed, and the key; a to-many where one value is needed is Core Data's "to-many key
/// not allowed here".
@Suite("Relationships: bad key paths")
struct RelationshipKeyPathErrorTests {
    static let model: NSManagedObjectModel = {
        let model = RelationshipModel.make()
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        return model
    }()

    func planError(_ entity: String, _ format: String?, sort: [String] = []) -> CoreDataError? {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = sort.map { NSSortDescriptor(key: $0, ascending: true) }
        do {
            _ = try FetchPlan(request, model: Self.model)
            return nil
        } catch {
            return error as? CoreDataError
        }
    }

    @Test func anUnknownKeyAnywhereInAPathNamesTheEntityAndTheKey() {
        #expect(planError("Animal", "classification.nope == 1")?.message
                == "keypath classification.nope not found in entity Animal: entity Classification has no property nope")
        #expect(planError("Toy", "pet.owner.nope == 1")?.message
                == "keypath pet.owner.nope not found in entity Toy: entity Owner has no property nope")
        #expect(planError("Animal", "nope.order == 1")?.message == "keypath nope.order not found in entity Animal")
        #expect(planError("Animal", "commonName.nope == 1")?.message
                == "keypath commonName.nope not found in entity Animal: commonName is an attribute of entity Animal, not a relationship")
        // Foundation's keys of a string value are read in SQL (docs/Predicates.md), across to-ones too.
        #expect(planError("Animal", "commonName.length == 1") == nil)
        #expect(planError("Animal", "classification.order.uppercaseString == 'X'") == nil)
        #expect(planError("Animal", nil, sort: ["commonName.length"])?.message
                == "keypath commonName.length not found in entity Animal (sort descriptor): commonName is an attribute of entity Animal, not a relationship")
        #expect(planError("Animal", "ANY zoos.nope == 1")?.message
                == "keypath zoos.nope not found in entity Animal: entity Zoo has no property nope")
        #expect(planError("Animal", "SUBQUERY(zoos, $z, $z.nope == 1).@count > 0")?.message
                == "keypath nope not found in entity Zoo")
        #expect(planError("Animal", nil, sort: ["classification.nope"])?.message
                == "keypath classification.nope not found in entity Animal (sort descriptor): entity Classification has no property nope")
        #expect(planError("Animal", "classification.nope == 1")?.userInfo[NSValidationKeyErrorKey] as? String == "classification.nope")
    }

    @Test func aToManyWhereOneValueIsNeededIsCoreDatasError() {
        for format in ["zoos.name == 'x'", "zoos == nil", "classification.animals.commonName BEGINSWITH 'a'", "zoos.name IN {'a'}",
                       "uppercase:(zoos.name) == 'X'"] {
            let error = planError("Animal", format)
            #expect(error?.message.hasPrefix("to-many key not allowed here: keypath ") == true, "\(format): \(String(describing: error))")
        }
        #expect(planError("Animal", "zoos.name == 'x'")?.message
                == "to-many key not allowed here: keypath zoos.name in entity Animal (use ANY, ALL, NONE, @count, an aggregate or SUBQUERY)")
        #expect(planError("Animal", nil, sort: ["zoos.name"])?.message
                == "to-many key not allowed here: keypath zoos.name in entity Animal (sort descriptor) (a to-many relationship gives many values)")
        // Two to-many relationships in one ANY: SUBQUERY says which objects are meant.
        #expect(planError("Animal", "ANY zoos.animals.commonName == 'x'")?.message.hasPrefix("to-many key not allowed here") == true)
    }

    @Test func quantifiersAndOperatorsNeedAToMany() {
        #expect(planError("Animal", "ANY classification.order == 'x'")?.message
                == "unsupported in a fetch of entity Animal: ANY needs a to-many key path, not classification.order")
        #expect(planError("Animal", "ALL commonName == 'x'")?.message
                == "unsupported in a fetch of entity Animal: ALL needs a to-many key path, not commonName")
        #expect(planError("Animal", "classification.@count == 1")?.message
                == "unsupported keypath classification.@count in entity Animal: @count must follow a to-many relationship")
        #expect(planError("Classification", "animals.@sum.commonName == 1")?.message
                == "unsupported keypath animals.@sum.commonName in entity Classification: @sum of commonName, which is not a number")
        #expect(planError("Animal", "zoos.@count.name == 1")?.message
                == "unsupported keypath zoos.@count.name in entity Animal: nothing may follow @count")
        #expect(planError("Animal", "SUBQUERY(classification, $c, $c.order == 'x').@count > 0")?.message
                == "unsupported in a fetch of entity Animal: SUBQUERY needs a to-many key path, not classification")
    }

    @Test func sortingByARelationshipItselfIsRefused() {
        #expect(planError("Animal", nil, sort: ["classification"])?.message
                == "keypath classification of entity Animal is a relationship: a sort descriptor of a fetch sorts by an attribute (classification.name)")
    }

    @Test func aTransientPropertyInAPathIsRefused() throws {
        let model = RelationshipModel.make()
        let transient = NSAttributeDescription(name: "nickname", type: .stringAttributeType)
        transient.isTransient = true
        model.entitiesByName["Classification"]!.properties.append(transient)
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.predicate = NSPredicate(format: "classification.nickname == 'x'")
        let error = try #require(throws: CoreDataError.self) { try FetchPlan(request, model: model) }
        #expect(error.message == "transient property nickname of entity Classification (keypath classification.nickname) cannot be used in a fetch predicate")
    }

    /// A section name key path reads through to-ones like a sort; an unknown key names where it failed.
    @Test func sectionNameKeyPathsAcrossToOnes() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(RelationshipModel.make()).viewContext
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.sortDescriptors = [NSSortDescriptor(key: "classification.order", ascending: true)]
        let good = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "classification.order", cacheName: nil)
        try good.performFetch()
        let bad = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "classification.nope", cacheName: nil)
        let error = try #require(throws: CoreDataError.self) { try bad.performFetch() }
        #expect(error.message == "keypath classification.nope not found in entity Animal (sectionNameKeyPath): entity Classification has no property nope")
        let toMany = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "zoos.name", cacheName: nil)
        #expect(throws: CoreDataError.self) { try toMany.performFetch() }
    }
}

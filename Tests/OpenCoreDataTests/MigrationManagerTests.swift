import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataPredicates
import OpenCoreDataTesting

/// A policy whose mapping expressions call it: `FUNCTION($entityPolicy, "fullNameFrom:family:", …)`.
final class FullNamePolicy: NSEntityMigrationPolicy {
    nonisolated(unsafe) static var begun: [String] = []

    override func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {
        Self.begun.append(mapping.name ?? "")
    }

    override func perform(function selector: String, arguments: [Any?], manager: NSMigrationManager) throws -> Any? {
        guard selector == "fullNameFrom:family:" else { return try super.perform(function: selector, arguments: arguments, manager: manager) }
        return [arguments[0] as? String, arguments[1] as? String].compactMap { $0 }.joined(separator: " ")
    }
}

/// A policy that cancels the migration after its second instance.
final class CancellingPolicy: NSEntityMigrationPolicy {
    private var count = 0
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        count += 1
        if count == 2 { manager.cancelMigrationWithError(CoreDataError(NSMigrationCancelledError, "stopped by the test")) }
    }
}

@Suite struct MigrationManagerTests {
    /// Version 1: Person (given, family) with pets; version 2: Person (fullName) with pets.
    static func models() -> (NSManagedObjectModel, NSManagedObjectModel) {
        func pet() -> NSEntityDescription {
            NSEntityDescription(name: "Pet", properties: [
                NSAttributeDescription(name: "name", type: .stringAttributeType),
                NSRelationshipDescription(name: "owner", destination: "Person", inverse: "pets"),
            ])
        }
        let v1 = NSManagedObjectModel(entities: [
            NSEntityDescription(name: "Person", properties: [
                NSAttributeDescription(name: "given", type: .stringAttributeType),
                NSAttributeDescription(name: "family", type: .stringAttributeType),
                NSRelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", toMany: true),
            ]), pet(),
        ])
        let v2 = NSManagedObjectModel(entities: [
            NSEntityDescription(name: "Person", properties: [
                NSAttributeDescription(name: "fullName", type: .stringAttributeType, optional: false),
                NSRelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", toMany: true),
            ]), pet(),
        ])
        return (v1, v2)
    }

    /// A store of version 1 with three people and their pets.
    static func sourceStore(_ directory: TemporaryStore, _ model: NSManagedObjectModel) throws -> URL {
        let url = directory.directory.appendingPathComponent("V1.sqlite")
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (given, family, pets) in [("Ada", "Lovelace", ["Byron"]), ("Alan", "Turing", []), ("Grace", "Hopper", ["Cobol", "Nano"])] {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(given, forKey: "given")
            person.setValue(family, forKey: "family")
            for name in pets {
                let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
                pet.setValue(name, forKey: "name")
                pet.setValue(person, forKey: "owner")
            }
        }
        try context.save()
        try coordinator.remove(store)
        return url
    }

    /// Person: fullName from FUNCTION($entityPolicy, …); pets through the manager. Pet: copied.
    static func mapping(policy: String = "OpenCoreDataTests.FullNamePolicy") throws -> NSMappingModel {
        let person = NSEntityMapping()
        person.name = "PersonToPerson"
        person.mappingType = .customEntityMappingType
        person.sourceEntityName = "Person"
        person.destinationEntityName = "Person"
        person.entityMigrationPolicyClassName = policy
        person.sourceExpression = NSExpression(format: "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Person\", \"TRUEPREDICATE\"), $manager.sourceContext, NO)")
        person.attributeMappings = [NSPropertyMapping(name: "fullName", valueExpression: NSExpression(
            node: .function("FUNCTION", [.variable("entityPolicy"), .constant(.string("fullNameFrom:family:")),
                                         .member(.variable("source"), "given"), .member(.variable("source"), "family")])))]
        person.relationshipMappings = [NSPropertyMapping(name: "pets", valueExpression: NSExpression(
            node: .function("FUNCTION", [.variable("manager"), .constant(.string("destinationInstancesForSourceRelationshipNamed:sourceInstances:")),
                                         .constant(.string("pets")), .member(.variable("source"), "pets")])))]
        let pet = NSEntityMapping()
        pet.name = "PetToPet"
        pet.mappingType = .copyEntityMappingType
        pet.sourceEntityName = "Pet"
        pet.destinationEntityName = "Pet"
        pet.attributeMappings = [NSPropertyMapping(name: "name", valueExpression: NSExpression(format: "$source.name"))]
        pet.relationshipMappings = [NSPropertyMapping(name: "owner", valueExpression: NSExpression(
            node: .function("FUNCTION", [.variable("manager"), .constant(.string("destinationInstancesForSourceRelationshipNamed:sourceInstances:")),
                                         .constant(.string("owner")), .member(.variable("source"), "owner")])))]
        let model = NSMappingModel()
        model.entityMappings = [person, pet]
        return model
    }

    /// A version-1 store, the destination beside it and a manager from version 1 to 2.
    struct Run {
        let directory = TemporaryStore()
        let v1: NSManagedObjectModel, v2: NSManagedObjectModel
        let source: URL, before: Data, destination: URL
        let manager: NSMigrationManager

        init() throws {
            (v1, v2) = MigrationManagerTests.models()
            source = try MigrationManagerTests.sourceStore(directory, v1)
            before = try Data(contentsOf: source)
            destination = directory.directory.appendingPathComponent("V2.sqlite")
            manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        }
    }

    /// A context on the store (kept alive by the test while it reads the objects' relationships).
    func context(_ url: URL, _ model: NSManagedObjectModel, options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func aCustomMappingWithAPolicyMigratesEveryObjectAndRelationship() throws {
        let run = try Run()
        defer { run.directory.cleanUp() }
        let (v2, source, before, destination, manager) = (run.v2, run.source, run.before, run.destination, run.manager)
        FullNamePolicy.begun = []
        try manager.migrateStore(from: source, type: .sqlite, mapping: try Self.mapping(), to: destination, type: .sqlite)
        #expect(manager.migrationProgress == 1)
        #expect(FullNamePolicy.begun == ["PersonToPerson"])
        #expect(manager.destinationInstances(forEntityMappingName: "PersonToPerson", sourceInstances: nil).count == 3)
        #expect(manager.sourceInstances(forEntityMappingName: "PetToPet", destinationInstances: nil).count == 3)
        #expect(manager.sourceEntity(for: manager.mappingModel.entityMappingsByName["PetToPet"]!) === run.v1.entitiesByName["Pet"])
        #expect(try Data(contentsOf: source) == before, "the source is only read")

        let reader = try context(destination, v2)
        let people = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        let pets = { (p: NSManagedObject) in p.mutableSetValue(forKey: "pets").allObjects.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }.sorted() }
        let byName = Dictionary(uniqueKeysWithValues: people.map { ($0.value(forKey: "fullName") as! String, pets($0)) })
        #expect(byName == ["Ada Lovelace": ["Byron"], "Alan Turing": [], "Grace Hopper": ["Cobol", "Nano"]])
        let nano = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet")).first { $0.value(forKey: "name") as? String == "Nano" }
        #expect((nano?.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "fullName") as? String == "Grace Hopper")
    }

    @Test func anInferredMappingMigratesAnAppleStoreThroughTheManager() throws {
        // DuckDuckGo's bookmarks, version 3 → 4: the to-one favoriteFolder becomes the to-many favoriteFolders.
        let copy = try FixtureCopy(.init(fixture: "ddg-bookmarks", store: "Bookmarks_V3.sqlite", version: "BookmarksModel 3"))
        defer { copy.cleanUp() }
        let v3 = try #require(try copy.model())
        let v4 = try #require(try VersionHashTests.model("ddg-bookmarks", version: "BookmarksModel 4"))
        for entity in v4.entities { entity.managedObjectClassName = "NSManagedObject" }
        let before = copy.bytes
        let destination = copy.directory.directory.appendingPathComponent("V4.sqlite")
        let manager = NSMigrationManager(sourceModel: v3, destinationModel: v4)
        try manager.migrateStore(from: copy.url, type: .sqlite, options: nil,
                                 mapping: try NSMappingModel.inferredMappingModel(forSourceModel: v3, destinationModel: v4),
                                 to: destination, type: .sqlite, options: nil)
        #expect(copy.bytes == before)
        let oldContext = try context(copy.url, v3, options: [NSReadOnlyPersistentStoreOption: true])
        let newContext = try context(destination, v4)
        let old = try oldContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "BookmarkEntity"))
        let new = try newContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "BookmarkEntity"))
        #expect(old.count == 10 && new.count == 10)
        func uuid(_ o: Any?) -> String? { (o as? NSManagedObject)?.value(forKey: "uuid") as? String }
        func uuids(_ o: Any?) -> [String] {
            switch o {
            case let ordered as NSOrderedSet: return ordered.array.compactMap(uuid)
            case let set as NSSet: return set.allObjects.compactMap(uuid).sorted()
            case let set as Set<NSManagedObject>: return set.compactMap(uuid).sorted()
            default: return []
            }
        }
        let migrated = Dictionary(uniqueKeysWithValues: new.map { (uuid($0)!, $0) })
        for object in old {
            let twin = try #require(migrated[uuid(object)!])
            for key in ["title", "url", "isFolder", "isPendingDeletion"] {
                #expect(twin.value(forKey: key) as? NSObject == object.value(forKey: key) as? NSObject, "\(key) of \(uuid(object)!)")
            }
            #expect(uuid(twin.value(forKey: "parent")) == uuid(object.value(forKey: "parent")))
            #expect(uuids(twin.value(forKey: "children")) == uuids(object.value(forKey: "children")))
            #expect(uuids(twin.value(forKey: "favorites")) == uuids(object.value(forKey: "favorites")))
            #expect(uuids(twin.value(forKey: "favoriteFolders")) == [uuid(object.value(forKey: "favoriteFolder"))].compactMap { $0 })
        }
    }

    @Test func aCancelledOrFailedMigrationLeavesNoDestinationAndTheSourceAsItWas() throws {
        let run = try Run()
        defer { run.directory.cleanUp() }
        let (source, before, destination, manager) = (run.source, run.before, run.destination, run.manager)
        // Cancelled by the policy after two people.
        let cancelling = try Self.mapping(policy: "OpenCoreDataTests.CancellingPolicy")
        cancelling.entityMappings[0].attributeMappings = [NSPropertyMapping(name: "fullName", valueExpression: NSExpression(format: "$source.given"))]
        #expect { try manager.migrateStore(from: source, type: .sqlite, mapping: cancelling, to: destination, type: .sqlite) } throws: {
            ($0 as NSError).code == NSMigrationCancelledError
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        // fullName is required: copying `first` of a person without one fails the destination's validation.
        let missing = try Self.mapping()
        missing.entityMappings[0].entityMigrationPolicyClassName = nil
        missing.entityMappings[0].attributeMappings = [NSPropertyMapping(name: "fullName", valueExpression: NSExpression(format: "$source.middle"))]
        #expect(throws: (any Error).self) {
            try manager.migrateStore(from: source, type: .sqlite, mapping: missing, to: destination, type: .sqlite)
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        // An unknown policy class is named.
        #expect { try manager.migrateStore(from: source, type: .sqlite, mapping: try Self.mapping(policy: "Nowhere.Policy"), to: destination, type: .sqlite) } throws: {
            ($0 as NSError).code == NSEntityMigrationPolicyError && "\($0)".contains("Nowhere.Policy")
        }
        // An existing destination is refused, untouched.
        try Data("keep".utf8).write(to: destination)
        #expect { try manager.migrateStore(from: source, type: .sqlite, mapping: try Self.mapping(), to: destination, type: .sqlite) } throws: {
            ($0 as NSError).code == NSMigrationManagerDestinationStoreError
        }
        #expect(try Data(contentsOf: destination) == Data("keep".utf8))
        #expect(try Data(contentsOf: source) == before)
    }

    @Test func theOlderSpellingInfersTheMappingWhenGivenNone() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let (v1, _) = Self.models()
        let source = try Self.sourceStore(directory, v1)
        // Version 2b: Person gains an optional nickname; inferred.
        let (v1b, _) = Self.models()
        v1b.entitiesByName["Person"]!.properties.append(NSAttributeDescription(name: "nickname", type: .stringAttributeType))
        let destination = directory.directory.appendingPathComponent("V2b.sqlite")
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v1b)
        try manager.migrateStore(from: source, sourceType: NSSQLiteStoreType, options: nil, with: nil,
                                 toDestinationURL: destination, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        let reader = try context(destination, v1b)
        let people = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.compactMap { $0.value(forKey: "family") as? String }.sorted() == ["Hopper", "Lovelace", "Turing"])
        #expect(people.allSatisfy { $0.value(forKey: "nickname") == nil })
        #expect(manager.mappingModel.entityMappings.allSatisfy { $0.name.hasPrefix("IEM_") })
        manager.reset()
        #expect(manager.destinationInstances(forEntityMappingName: "IEM_Transform_Person", sourceInstances: nil).isEmpty)
    }

    @Test func theMigrationVariablesAreApplesNames() {
        #expect([NSMigrationManagerKey, NSMigrationSourceObjectKey, NSMigrationDestinationObjectKey, NSMigrationEntityMappingKey,
                 NSMigrationPropertyMappingKey, NSMigrationEntityPolicyKey] == ["manager", "source", "destination", "entityMapping", "propertyMapping", "entityPolicy"])
    }
}

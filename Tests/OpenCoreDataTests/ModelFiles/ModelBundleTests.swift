import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Finding models: `mergedModel(from:)` over bundles, `NSPersistentContainer(name:)` over the main bundle
/// and the resource bundles beside the executable. The test target ships `Zoo.xcdatamodeld` (seed 003's
/// three entities, written in Xcode's format) as a `.copy` resource.
@Suite("Model files: finding the model")
struct ModelBundleTests {
    @Test func theZooModelLoadsFromTheModuleBundle() throws {
        let model = try #require(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        #expect(model.entities.map { $0.name! } == ["Animal", "Classification", "Zoo"])
        #expect(model.versionName == "Zoo")
        let animal = model.entitiesByName["Animal"]!
        #expect(animal.managedObjectClassName == "Animal" && animal.codeGenerationType == "class")
        #expect(animal.relationshipsByName["classification"]?.isToMany == false)
        #expect(animal.relationshipsByName["zoos"]?.inverseRelationship === model.entitiesByName["Zoo"]?.relationshipsByName["animals"])
        #expect(animal.relationshipsByName["zoos"]?.deleteRule == .nullifyDeleteRule)
    }

    /// Insert, save, refetch in another context and walk the relationships both ways; a delete nullifies.
    @Test func theZooModelRunsAStore() throws {
        let model = try #require(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(model)
        let context = container.viewContext
        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let sanDiego = insert("Zoo", ["name": "San Diego Zoo", "location": "San Diego, CA"])
        let tampa = insert("Zoo", ["name": "Lowry Park Zoo", "location": "Tampa, FL"])
        let primates = insert("Classification", ["scientificClassification": "Primates", "order": "Primates", "family": "Hominidae"])
        let gorilla = insert("Animal", ["commonName": "Gorilla", "habitat": "Forest", "classification": primates])
        insert("Animal", ["commonName": "Orangutan", "habitat": "Rainforest", "classification": primates])
            .mutableSetValue(forKey: "zoos").add(tampa)
        gorilla.mutableSetValue(forKey: "zoos").addObjects(from: [sanDiego, tampa])
        try context.save()

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Zoo")
            request.predicate = NSPredicate(format: "ANY animals.classification.family == %@", "Hominidae")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let zoos = try other.fetch(request)
            #expect(zoos.map { $0.value(forKey: "name") as? String } == ["Lowry Park Zoo", "San Diego Zoo"])
            let tampaAnimals = zoos[0].value(forKey: "animals") as? Set<NSManagedObject> ?? []
            #expect(Set(tampaAnimals.compactMap { $0.value(forKey: "commonName") as? String }) == ["Gorilla", "Orangutan"])
            let family = tampaAnimals.first?.value(forKey: "classification") as? NSManagedObject
            #expect(family?.value(forKey: "family") as? String == "Hominidae")
            #expect((family?.value(forKey: "animals") as? Set<NSManagedObject>)?.count == 2)
        }
        context.delete(primates)
        try context.save()
        #expect(gorilla.value(forKey: "classification") == nil, "nullify")
        #expect((gorilla.value(forKey: "zoos") as? Set<NSManagedObject>)?.count == 2)
    }

    /// Models at the top level of any bundle are merged; an unreadable one or two entities of one name give nil.
    @Test func mergedModelMergesTheTopLevelOfBundles() throws {
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        try folder.version("People", contents: ModelFileFixtures.small())
        try folder.version("Nested/Hidden", contents: ModelFileFixtures.small(attribute: "deep"))
        _ = try folder.bundle("Zoo", versions: [("Zoo", try String(contentsOf: Bundle.module.url(forResource: "Zoo.xcdatamodeld/Zoo.xcdatamodel/contents", withExtension: nil)!, encoding: .utf8))], current: "Zoo.xcdatamodel")
        let bundle = try #require(Bundle(url: folder.directory))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(merged.entities.map { $0.name! }.sorted() == ["Animal", "Classification", "Person", "Zoo"])
        #expect(merged.entitiesByName["Person"]?.attributesByName.keys.sorted() == ["name"], "only the top level is searched")
        for entity in merged.entities { #expect(entity.managedObjectModel === merged) }
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(merged)  // the merged model loads

        #expect(NSManagedObjectModel.mergedModel(from: [bundle, Bundle.module]) == nil, "Animal twice")
        try folder.version("Broken", contents: "<model><entity")
        #expect(NSManagedObjectModel.mergedModel(from: [bundle]) == nil)
        let empty = ModelFolder()
        defer { empty.cleanUp() }
        #expect(NSManagedObjectModel.mergedModel(from: [try #require(Bundle(url: empty.directory))]) == nil)
    }

    /// `Bundle.main` (the default of `mergedModel(from: nil)`) is the executable's folder on Linux: a model
    /// folder there is found by both lookups. (The test puts one there for a moment, under a unique name.)
    @Test func theMainBundleIsSearched() throws {
        let name = "MainProbe\(UUID().uuidString.prefix(8))"
        let url = Bundle.main.resourceURL!.appendingPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(ModelFileFixtures.small().utf8).write(to: url.appendingPathComponent("contents"))
        #expect(NSManagedObjectModel.mergedModel(from: nil)?.entitiesByName["Person"] != nil)
        #expect(NSManagedObjectModel.mergedModel(from: [Bundle.main])?.entities.count == 1)
        #expect(NSPersistentContainer(name: name).managedObjectModel.entitiesByName["Person"] != nil)
    }

    /// The test executable's resource bundle sits beside it, as an app's does.
    @Test func containerByNameFindsTheResourceBundleBesideTheExecutable() throws {
        let container = NSPersistentContainer(name: "Zoo")
        #expect(container.managedObjectModel.entities.map { $0.name! } == ["Animal", "Classification", "Zoo"])
        let store = TemporaryStore()
        defer { store.cleanUp() }
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: store.url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let zoo = NSEntityDescription.insertNewObject(forEntityName: "Zoo", into: container.viewContext)
        zoo.setValue("Oklahoma City Zoo", forKey: "name")
        try container.viewContext.save()
    }

    @Test func containerWithoutAModelSaysWhereItLookedAndWhatToDeclare() throws {
        let container = NSPersistentContainer(name: "Aquarium")
        var errors: [any Error] = []
        container.loadPersistentStores { _, error in if let error { errors.append(error) } }
        let error = try #require(errors.first as? CoreDataError)
        #expect(errors.count == 1)
        #expect(error.message.hasPrefix("NSPersistentContainer found no model named Aquarium: looked for Aquarium.xcdatamodeld, Aquarium.xcdatamodel, Aquarium.momd and Aquarium.mom in the main bundle and the resource bundles beside the executable ("))
        #expect(error.message.contains(Bundle.main.bundleURL.standardizedFileURL.path))
        #expect(error.message.contains("OpenCoreData_OpenCoreDataTests.resources"))
        #expect(error.message.contains("resources: [.copy(\"Aquarium.xcdatamodeld\")]"))
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
    }
}

import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// An app's atomic store (`JSONAtomicStore`, registered as its own type) through the same fetch, save,
/// relationship and controller paths as the SQLite store.
@Suite("Atomic stores", .serialized)
struct AtomicStoreTests {
    init() { NSPersistentStoreCoordinator.registerStoreClass(JSONAtomicStore.self, forStoreType: JSONAtomicStore.type) }

    private func open(_ url: URL) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ZooModel.make())
        try coordinator.addPersistentStore(type: .init(rawValue: JSONAtomicStore.type), at: url)
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// A store of the app's type holding the zoo, saved.
    private func seededStore(in directory: TemporaryStore) throws -> (URL, NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let url = directory.directory.appendingPathComponent("zoo.json")
        let (coordinator, context) = try open(url)
        ZooModel.seed(context)
        try context.save()
        return (url, coordinator, context)
    }

    private func animals(_ context: NSManagedObjectContext, _ format: String? = nil) throws -> [Animal] {
        let request = ZooModel.tableRequest()
        request.predicate = format.map { NSPredicate(format: $0) }
        return try context.fetch(request)
    }

    @Test func savedObjectsComeBackWithTheirRelationshipsInANewCoordinator() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("zoo.json")
        let (coordinator, context) = try open(url)
        #expect(coordinator.persistentStores.first is JSONAtomicStore)
        #expect(coordinator.persistentStores.first?.type == JSONAtomicStore.type)
        let seeded = ZooModel.seed(context)
        try context.save()
        #expect(FileManager.default.fileExists(atPath: url.path), "the store's save() wrote its file")
        let expected = try animals(context).map { "\($0.commonName!) \($0.classification?.family ?? "-") \($0.zoos.map { $0.name! }.sorted())" }

        let (_, reopened) = try open(url)
        let read = try animals(reopened)
        #expect(read.map { "\($0.commonName!) \($0.classification?.family ?? "-") \($0.zoos.map { $0.name! }.sorted())" } == expected)
        #expect(read.count == seeded.animals.count)
        let filtered = try animals(reopened, "ANY zoos.name == 'San Diego Zoo' AND classification.order != nil")
        #expect(filtered.allSatisfy { $0.zoos.contains { $0.name == "San Diego Zoo" } } && !filtered.isEmpty)
        #expect(try reopened.count(for: NSFetchRequest<Zoo>(entityName: "Zoo")) == seeded.zoos.count)
        // Inverses were rebuilt from the records: each classification lists its animals.
        let classifications = try reopened.fetch(NSFetchRequest<Classification>(entityName: "Classification"))
        #expect(classifications.reduce(0) { $0 + $1.animals.count } == read.filter { $0.classification != nil }.count)
    }

    @Test func updatesAndDeletesReachTheFileThroughTheCacheNodeMethods() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let (url, coordinator, context) = try seededStore(in: directory)
        let store = try #require(coordinator.persistentStores.first as? JSONAtomicStore)
        let all = try animals(context)
        all[0].habitat = "Changed"
        context.delete(all[1])
        try context.save()
        #expect(store.updatedNodes >= 1 && store.removedNodes == 1)
        let rows = try ["Animal", "Zoo", "Classification"].reduce(0) { $0 + (try context.count(for: NSFetchRequest<NSManagedObject>(entityName: $1))) }
        #expect(store.cacheNodes().count == rows)
        let (_, reopened) = try open(url)
        #expect(try animals(reopened, "habitat == 'Changed'").map(\.commonName) == [all[0].commonName])
        #expect(try animals(reopened).count == all.count - 1)
        // The reference objects are the store's own.
        let id = try animals(reopened)[0].objectID
        let reopenedStore = try #require(reopened.persistentStoreCoordinator?.persistentStores.first as? NSAtomicStore)
        #expect((reopenedStore.referenceObject(for: id) as? String)?.hasPrefix("r-") == true)
        #expect(reopenedStore.cacheNode(for: id)?.value(forKey: "commonName") as? String == (try animals(reopened)[0].commonName))
    }

    @Test func aFailedStoreSaveLeavesFileStoreAndContextAsTheyWere() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let (url, coordinator, context) = try seededStore(in: directory)
        let bytes = try Data(contentsOf: url)
        let store = try #require(coordinator.persistentStores.first as? JSONAtomicStore)
        let nodes = store.cacheNodes().count
        let zoo = Zoo(context: context)
        zoo.name = "Failing Zoo"
        let first = try animals(context)[0]
        first.habitat = "Nowhere"
        JSONAtomicStore.failNextSave = true
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try Data(contentsOf: url) == bytes, "the file is untouched")
        #expect(store.cacheNodes().count == nodes)
        #expect(context.hasChanges && zoo.isInserted && first.isUpdated, "the context keeps its changes")
        let other = NSManagedObjectContext(.privateQueue)
        other.persistentStoreCoordinator = coordinator
        try other.performAndWait {
            #expect(try other.count(for: NSFetchRequest<Zoo>(entityName: "Zoo")) == ZooModel.zoos.count, "the mirror was rolled back")
            let read = try other.fetch(ZooModel.tableRequest())
            #expect(!read.contains { $0.habitat == "Nowhere" })
        }
        try context.save()
        #expect(try open(url).1.count(for: NSFetchRequest<Zoo>(entityName: "Zoo")) == ZooModel.zoos.count + 1)
    }

    @Test func aControllerOverAnAtomicStoreReportsChanges() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let (_, context) = try open(directory.directory.appendingPathComponent("zoo.json"))
        ZooModel.seed(context)
        try context.save()
        let controller = NSFetchedResultsController(fetchRequest: ZooModel.tableRequest(), managedObjectContext: context,
                                                    sectionNameKeyPath: "classification.order", cacheName: nil)
        let delegate = ChangeCounter()
        controller.delegate = delegate  // as in Core Data, a controller without a delegate tracks nothing
        try controller.performFetch()
        let before = controller.fetchedObjects?.count ?? 0
        let animal = Animal(context: context)
        animal.commonName = "Aardvark"
        animal.classification = try animals(context)[0].classification
        try context.save()
        #expect(controller.fetchedObjects?.count == before + 1)
        #expect(controller.fetchedObjects?.contains(animal) == true)
        #expect(delegate.changes == 1)
        context.delete(animal)
        try context.save()
        #expect(controller.fetchedObjects?.count == before && delegate.changes == 2)
    }

    final class ChangeCounter: NSObject, NSFetchedResultsControllerDelegate {
        var changes = 0
        func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { changes += 1 }
    }

    @Test func registrationDecidesWhatATypeMakes() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("x.json")
        NSPersistentStoreCoordinator.registerStoreClass(nil, forStoreType: "Unregistered")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ZooModel.make())
        #expect(throws: CoreDataError.self) { try coordinator.addPersistentStore(ofType: "Unregistered", configurationName: nil, at: url) }
        NSPersistentStoreCoordinator.registerStoreClass(NSObject.self, forStoreType: "NotAStore")
        #expect(throws: CoreDataError.self) { try coordinator.addPersistentStore(ofType: "NotAStore", configurationName: nil, at: url) }
        NSPersistentStoreCoordinator.registerStoreClass(NSAtomicStore.self, type: .init(rawValue: "Bare"))
        let error = #expect(throws: CoreDataError.self) { try coordinator.addPersistentStore(ofType: "Bare", configurationName: nil, at: url) }
        #expect(error?.message.contains("loadMetadata") == true || error?.message.contains("load()") == true, "\(String(describing: error))")
        #expect(coordinator.persistentStores.isEmpty)
    }
}

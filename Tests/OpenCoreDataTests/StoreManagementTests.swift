import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// The coordinator's store management under Apple's newer spellings: `StoreType`, `persistentStore(for:)`,
/// `destroyPersistentStore`, `perform` / `performAndWait`.
@Suite("Store management")
struct StoreManagementTests {
    @Test func storesAddedByTypeAreFoundByURL() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        let added = try coordinator.addPersistentStore(type: .sqlite, at: store.url)
        #expect(added.type == NSSQLiteStoreType && NSPersistentStore.StoreType.sqlite.rawValue == NSSQLiteStoreType)
        #expect(coordinator.persistentStore(for: store.url) === added)
        #expect(coordinator.url(for: added) == store.url)
        #expect(coordinator.persistentStore(for: store.directory.appendingPathComponent("Other.sqlite")) == nil)
        let memory = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        #expect(try memory.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null")).type == NSInMemoryStoreType)
    }

    @Test func destroyingAStoreRemovesItAndItsFiles() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        SeedModel.insertProducts(context, count: 3)
        try context.save()
        let coordinator = container.persistentStoreCoordinator
        #expect(FileManager.default.fileExists(atPath: store.url.path))
        try coordinator.destroyPersistentStore(at: store.url, type: .sqlite)
        #expect(coordinator.persistentStores.isEmpty)
        for suffix in ["", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: store.url.path + suffix)) }
        // A store added there again is empty; destroying a store that is not there is not an error.
        try coordinator.addPersistentStore(type: .sqlite, at: store.url)
        let fresh = container.newBackgroundContext()
        #expect(try fresh.performAndWait { try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Products")) } == 0)
        let nowhere = store.directory.appendingPathComponent("Nothing.sqlite")
        try coordinator.destroyPersistentStore(at: nowhere, ofType: NSSQLiteStoreType)
    }

    @Test func destroyingAFileThatIsNotAStoreLeavesIt() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let text = Data("not a database, sixteen bytes and more".utf8)
        try text.write(to: store.url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        #expect { try coordinator.destroyPersistentStore(at: store.url, type: .sqlite) } throws: {
            ($0 as NSError).code == NSPersistentStoreInvalidTypeError && "\($0)".contains(store.url.path)
        }
        #expect(try Data(contentsOf: store.url) == text)
    }

    @Test func theCoordinatorRunsBlocksOnItsQueue() async throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        let nested = coordinator.performAndWait { coordinator.performAndWait { 42 } }
        #expect(nested == 42)
        #expect(throws: CoreDataError.self) { try coordinator.performAndWait { throw CoreDataError(NSCoreDataError, "boom") } }
        let value = await coordinator.perform { 7 }
        #expect(value == 7)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            coordinator.perform { done.resume() }
        }
    }
}

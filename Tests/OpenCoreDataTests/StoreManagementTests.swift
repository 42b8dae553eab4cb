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
        // NSPersistentStoreForceDestroyOption deletes it all the same.
        try coordinator.destroyPersistentStore(at: store.url, type: .sqlite, options: [NSPersistentStoreForceDestroyOption: true])
        #expect(!FileManager.default.fileExists(atPath: store.url.path))
    }

    @Test func theOlderMetadataSpellingsReadAndWriteTheFile() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container()
        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store.url, options: nil)
        #expect(read[NSStoreTypeKey] as? String == NSSQLiteStoreType)
        let untyped = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: store.url)
        #expect(untyped[NSStoreUUIDKey] as? String == read[NSStoreUUIDKey] as? String)
        let oldest = try NSPersistentStoreCoordinator.metadataForPersistentStore(with: store.url)
        #expect(oldest[NSStoreUUIDKey] as? String == read[NSStoreUUIDKey] as? String)
        var changed = read
        changed["AppKey"] = "one"
        try NSPersistentStoreCoordinator.setMetadata(changed, forPersistentStoreOfType: NSSQLiteStoreType, at: store.url, options: nil)
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: store.url)["AppKey"] as? String == "one")
        changed["AppKey"] = "two"
        try NSPersistentStoreCoordinator.setMetadata(changed, forPersistentStoreOfType: nil, at: store.url)
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: store.url)["AppKey"] as? String == "two")
    }

    @Test func ignoringVersioningOpensAStoreWhoseHashesDifferWhenItsTablesFit() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        SeedModel.insertProducts(container.viewContext, count: 2)
        try container.viewContext.save()
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        // The same tables, another hash: a version hash modifier changes the hash, not the layout.
        func modified() -> NSManagedObjectModel {
            let model = SeedModel.make()
            model.entitiesByName["Products"]!.versionHashModifier = "2"
            return model
        }
        let refused = try NSPersistentStoreCoordinator(validatingModel: modified())
        #expect { try refused.addPersistentStore(type: .sqlite, at: store.url) } throws: {
            ($0 as NSError).code == NSPersistentStoreIncompatibleVersionHashError
        }
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: modified())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store.url,
                                           options: [NSIgnorePersistentStoreVersioningOption: true])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Products")) == 2)
        // A model whose columns the file lacks is refused all the same, and the file is left as it was.
        let wider = SeedModel.make()
        wider.entitiesByName["Products"]!.properties.append(NSAttributeDescription(name: "category", type: .stringAttributeType))
        try coordinator.remove(coordinator.persistentStores[0])
        let unchanged = try Data(contentsOf: store.url)
        let other = try NSPersistentStoreCoordinator(validatingModel: wider)
        #expect { try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store.url,
                                                options: [NSIgnorePersistentStoreVersioningOption: true]) } throws: {
            "\($0)".contains("ZCATEGORY")
        }
        #expect(try Data(contentsOf: store.url) == unchanged)
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

@Suite("Store options: timeout and SQLite pragmas")
struct StoreOptionTests {
    @Test func pragmasAndTimeoutReachTheConnection() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let description = NSPersistentStoreDescription(url: store.url)
        description.timeout = 3
        description.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
        description.setValue(NSNumber(value: 123), forPragmaNamed: "cache_size")
        #expect(description.timeout == 3)
        #expect(description.sqlitePragmas["cache_size"] == NSNumber(value: 123))
        description.setValue(nil, forPragmaNamed: "cache_size")
        #expect(description.sqlitePragmas.keys.sorted() == ["journal_mode"])
        let container = NSPersistentContainer(name: "Test", managedObjectModel: SeedModel.make())
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        SeedModel.insertProducts(container.viewContext, count: 2)
        try container.viewContext.save()
        // The journal mode is the file's: every connection reads the one the pragma set.
        var mode = ""
        try container.persistentStoreCoordinator.sqlite.read { db in try db.query("PRAGMA journal_mode") { if case .string(let s) = $0.value(0, as: .stringAttributeType) { mode = s } } }
        #expect(mode == "delete")
    }

    @Test func aBadPragmaIsRefusedBeforeTheFileIsTouched() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try store.container()
            SeedModel.insertProducts(container.viewContext, count: 2)
            try container.viewContext.save()
        }
        let before = try Data(contentsOf: store.url)
        for pragmas in [["cache_size": 10, "bad name; DROP TABLE ZPRODUCTS": 1], ["cache_size": [1, 2]]] as [[String: Any]] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
            #expect { try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store.url,
                                                         options: [NSSQLitePragmasOption: pragmas]) } throws: {
                "\($0)".contains("NSSQLitePragmasOption")
            }
            #expect(coordinator.persistentStores.isEmpty)
        }
        #expect(try Data(contentsOf: store.url) == before)
    }
}

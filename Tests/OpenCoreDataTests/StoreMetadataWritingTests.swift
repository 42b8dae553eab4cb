import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Metadata an app writes into a SQLite store: `setMetadata(_:type:at:options:)` on a file, and
/// `setMetadata(_:for:)` on an added store, written by its next save (Apple: "does not change the
/// information on disk until the store is actually saved").
@Suite("Store management: writing a store's metadata")
struct StoreMetadataWritingTests {
    private func onDisk(_ url: URL) throws -> [String: Any] {
        try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    }

    @Test func aClosedStoreFileTakesTheAppsKeysAndStillOpens() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try store.container()
            insertProducts(container.viewContext, count: 3)
            try container.viewContext.save()
        }
        var metadata = try onDisk(store.url)
        let uuid = try #require(metadata[NSStoreUUIDKey] as? String)
        metadata["AppVersion"] = "2.1"
        try NSPersistentStoreCoordinator.setMetadata(metadata, type: .sqlite, at: store.url)
        #expect(try onDisk(store.url)["AppVersion"] as? String == "2.1")
        // A dictionary of the app's keys alone keeps Core Data's: the store still opens with its model.
        try NSPersistentStoreCoordinator.setMetadata(["AppVersion": "3"], type: .sqlite, at: store.url)
        let written = try onDisk(store.url)
        #expect(written["AppVersion"] as? String == "3" && written[NSStoreUUIDKey] as? String == uuid)
        #expect(written[NSStoreModelVersionHashesKey] != nil)
        let reopened = try store.container()
        #expect(try reopened.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Products")) == 3)
        #expect(reopened.persistentStoreCoordinator.persistentStores.first?.metadata["AppVersion"] as? String == "3")
    }

    @Test func anAddedStoreWritesTheMetadataWithItsNextSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try store.container()
            let coordinator = container.persistentStoreCoordinator
            let added = try #require(coordinator.persistentStores.first)
            var metadata = coordinator.metadata(for: added)
            metadata["SyncToken"] = "abc"
            coordinator.setMetadata(metadata, for: added)
            #expect(coordinator.metadata(for: added)["SyncToken"] as? String == "abc")
            #expect(try onDisk(store.url)["SyncToken"] == nil, "not on disk before a save")
            insertProducts(container.viewContext, count: 1)
            try container.viewContext.save()
            #expect(try onDisk(store.url)["SyncToken"] as? String == "abc")
        }
        let reopened = try store.container()
        #expect(reopened.persistentStoreCoordinator.persistentStores.first?.metadata["SyncToken"] as? String == "abc")
    }

    @Test func aFileThatIsNoCoreDataStoreIsRefusedUntouched() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let file = store.directory.appendingPathComponent("other.sqlite")
        let bytes = Data("SQLite format 3\0".utf8) + Data(count: 200)
        try bytes.write(to: file)
        #expect(throws: CoreDataError.self) { try NSPersistentStoreCoordinator.setMetadata(["A": 1], type: .sqlite, at: file) }
        #expect(try Data(contentsOf: file) == bytes)
        #expect(throws: CoreDataError.self) {
            try NSPersistentStoreCoordinator.setMetadata(["A": 1], type: .sqlite, at: store.directory.appendingPathComponent("missing.sqlite"))
        }
    }
}

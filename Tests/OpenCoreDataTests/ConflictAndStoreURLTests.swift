import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// What a save conflict reports (`NSMergeConflict`'s snapshots and versions) and `setURL(_:for:)`.
@Suite("Save conflicts and store URLs")
struct ConflictAndStoreURLTests {
    @Test func aSaveConflictCarriesTheObjectsValuesAndBothVersions() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        let product = insertProducts(context, count: 1)[0]
        try context.save()
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let copy = try #require(try other.existingObject(with: product.objectID) as? Products)
            copy.price = 7
            try other.save()
        }
        product.price = 42
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSManagedObjectMergeError)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        let conflict = try #require(conflicts.first)
        #expect(conflict.sourceObject === product)
        #expect(conflict.objectSnapshot?["price"] as? Int == 42, "the object's unsaved value")
        #expect(conflict.persistedSnapshot?["price"] as? Int == 7, "the store's value")
        #expect(conflict.oldVersionNumber == 1)
        #expect(conflict.newVersionNumber == 2)
    }

    @Test func anAtomicStoreMovesToANewURLButASQLiteStoreDoesNot() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let coordinator = container.persistentStoreCoordinator
        let sqlite = try #require(coordinator.persistentStores.first)
        let elsewhere = store.directory.appendingPathComponent("Moved.sqlite")
        #expect(coordinator.setURL(elsewhere, for: sqlite) == false)
        #expect(sqlite.url == store.url)

        let binaryURL = store.directory.appendingPathComponent("Values.binary")
        let movedURL = store.directory.appendingPathComponent("Moved.binary")
        let binaryCoordinator = NSPersistentStoreCoordinator(managedObjectModel: BinaryStoreTests.model())
        let binary = try binaryCoordinator.addPersistentStore(type: .binary, at: binaryURL)
        #expect(binaryCoordinator.setURL(movedURL, for: binary))
        #expect(binary.url == movedURL)
        #expect(binaryCoordinator.persistentStore(for: movedURL) === binary)
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = binaryCoordinator
        NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
        try context.save()
        #expect(FileManager.default.fileExists(atPath: movedURL.path), "the next save writes the new file")
    }
}

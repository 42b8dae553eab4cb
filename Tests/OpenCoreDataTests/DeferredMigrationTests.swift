import Foundation
import Testing
@testable import OpenCoreData

/// `NSPersistentStoreDeferredLightweightMigrationOptionKey`: the migration keeps the tables it replaced,
/// the metadata says so, and `finishDeferredLightweightMigration()` / `…Task()` drop them.
@Suite struct DeferredMigrationTests {
    typealias Setup = LightweightMigrationModelTests.Setup

    /// Version 2 adds an entity (every table is renumbered, so each is rebuilt and its old one replaced).
    static func versions() -> [NSManagedObjectModel] {
        let v2 = LightweightMigrationModelTests.version2 { model in
            model.entities = [NSEntityDescription(name: "MigAuthor", properties: [NSAttributeDescription(name: "name", type: .stringAttributeType)])] + model.entities
        }
        return [LightweightMigrationModelTests.version1(), v2]
    }

    func leftovers(_ setup: Setup) throws -> [String] {
        try DeferredMigrationCleanup.leftovers(SQLiteConnection(path: setup.url.path))
    }

    @Test func theCleanupWaitsForFinishAndTheMetadataSaysSo() throws {
        let setup = try Setup(Self.versions())
        defer { setup.cleanUp() }
        var options = LightweightMigrationModelTests.migrate
        options[NSPersistentStoreDeferredLightweightMigrationOptionKey] = true
        let context = try setup.context(version: 2, options: options)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = coordinator.persistentStores[0]
        #expect(try Setup.tagsByTitle(context) == LightweightMigrationModelTests.tags)
        let kept = try leftovers(setup)
        #expect(kept.count >= 2 && kept.allSatisfy { $0.hasPrefix("Z_OCDMIGRATING_") })
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)
        let onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: setup.url)
        #expect(onDisk[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)

        // One task drops one table; finishing drops the rest and clears the key.
        try coordinator.finishDeferredLightweightMigrationTask()
        #expect(try leftovers(setup).count == kept.count - 1)
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)
        try coordinator.finishDeferredLightweightMigration()
        #expect(try leftovers(setup).isEmpty)
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: setup.url)
        #expect(after[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
        #expect(try Setup.tagsByTitle(context) == LightweightMigrationModelTests.tags)
        // Nothing pending: finishing again does nothing.
        try coordinator.finishDeferredLightweightMigration()
        try coordinator.finishDeferredLightweightMigrationTask()
    }

    @Test func withoutTheOptionTheMigrationCleansUpAtOnce() throws {
        let setup = try Setup(Self.versions())
        defer { setup.cleanUp() }
        let context = try setup.context(version: 2)
        #expect(try leftovers(setup).isEmpty)
        let coordinator = try #require(context.persistentStoreCoordinator)
        #expect(coordinator.metadata(for: coordinator.persistentStores[0])[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
    }
}

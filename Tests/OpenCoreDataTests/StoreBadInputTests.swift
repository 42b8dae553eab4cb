import Foundation
import Testing
@testable import OpenCoreData

/// Store files that must not open (issue #33, "Bad input", and item 4): each is refused with an error
/// that names the file and what is wrong, and the file (and its `-wal`) keeps every byte.
@Suite struct StoreBadInputTests {
    /// A rollback-journal store (Post, Section) and a WAL store whose rows are in its `-wal` (BookmarkEntity).
    static let journal = VersionHashTests.Pair(fixture: "wibosco-migration-revised", store: "CoreDataMigration_Example_3.sqlite",
                                               version: "CoreDataMigration_Example 3")
    static let wal = VersionHashTests.Pair(fixture: "ddg-bookmarks", store: "Bookmarks_V5.sqlite", version: "BookmarksModel 5")

    /// A copy of `pair` changed by `sql` (run and closed before the test looks at the bytes).
    static func damaged(_ pair: VersionHashTests.Pair, _ sql: [String]) throws -> FixtureCopy {
        let copy = try FixtureCopy(pair)
        if !sql.isEmpty {
            let db = try SQLiteConnection(path: copy.url.path)
            for statement in sql { try db.execute(statement) }
        }
        return copy
    }

    /// Opens `copy` with `model` (its own model when nil), expecting a `CoreDataError` whose code is
    /// `code` and whose message names the file and contains `words`; the store and `-wal` bytes are unchanged.
    static func expectRefused(_ copy: FixtureCopy, model: NSManagedObjectModel? = nil, options: [AnyHashable: Any]? = nil,
                              code: Int, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = copy.bytes.prefix(2)
        let model = try model ?? #require(try copy.model())
        let error = #expect(throws: CoreDataError.self, sourceLocation: sourceLocation) { _ = try copy.coordinator(model, options: options) }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.contains(copy.url.path) == true, "names the file: \(error?.message ?? "")", sourceLocation: sourceLocation)
        #expect(error?.message.contains(words) == true, "says \"\(words)\": \(error?.message ?? "")", sourceLocation: sourceLocation)
        #expect(copy.bytes.prefix(2) == before, "the store and its -wal are unchanged", sourceLocation: sourceLocation)
    }

    /// Another model version than the store's: NSPersistentStoreIncompatibleVersionHashError (134100),
    /// naming the entities whose hashes differ; the same with `NSMigratePersistentStoresAutomaticallyOption`
    /// alone (lightweight migration also needs `NSInferMappingModelAutomaticallyOption`: LightweightMigrationTests).
    @Test func aModelThatDiffersIsRefusedWith134100() throws {
        for pair in [Self.journal, Self.wal] {
            let copy = try Self.damaged(pair, [])
            defer { copy.cleanUp() }
            let folder = try #require(VersionHashTests.modelFolder(pair.fixture))
            let other = try #require(try NSManagedObjectModel(validatingContentsOf: folder).versions.first {
                $0.versionName != pair.version && $0.entityVersionHashesByName != (try? copy.model())??.entityVersionHashesByName
            })
            for entity in other.entities { entity.managedObjectClassName = "NSManagedObject" }
            try Self.expectRefused(copy, model: other, code: NSPersistentStoreIncompatibleVersionHashError, "version hashes of")
            try Self.expectRefused(copy, model: other, options: [NSMigratePersistentStoresAutomaticallyOption: true],
                                   code: NSPersistentStoreIncompatibleVersionHashError, "version hashes of")
        }
    }

    /// NSPersistenceFrameworkVersion above ours: a writable open is refused naming both versions; the
    /// store opens read-only and fetches.
    @Test func aStoreFromANewerFrameworkOpensReadOnlyOnly() throws {
        for pair in [Self.journal, Self.wal] {
            let copy = try FixtureCopy(pair)
            defer { copy.cleanUp() }
            var plist = try VersionHashTests.metadata(of: copy.url)
            plist["NSPersistenceFrameworkVersion"] = 9999
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            do {
                let db = try SQLiteConnection(path: copy.url.path)
                try db.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.data(data)])
            }
            try Self.expectRefused(copy, code: NSPersistentStoreOpenError, "NSPersistenceFrameworkVersion 9999; OpenCoreData writes 1344")
            let before = copy.bytes.prefix(2)
            let model = try #require(try copy.model())
            let coordinator = try copy.coordinator(model, options: [NSReadOnlyPersistentStoreOption: true])
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let name = model.entities.sorted { $0.layout.entityID < $1.layout.entityID }.last!.name!
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: name)) > 0)
            #expect(coordinator.persistentStores.first?.metadata["NSPersistenceFrameworkVersion"] as? Int == 9999)
            #expect(copy.bytes.prefix(2) == before)
        }
    }

    @Test func metadataThatIsNotAPropertyList() throws {
        for pair in [Self.journal, Self.wal] {
            let copy = try Self.damaged(pair, ["UPDATE Z_METADATA SET Z_PLIST = X'00010203'"])
            defer { copy.cleanUp() }
            try Self.expectRefused(copy, code: NSPersistentStoreInvalidTypeError, "Z_METADATA.Z_PLIST (4 bytes) is not a property list")
        }
    }

    @Test func anEntityTableMissingAColumn() throws {
        let copy = try Self.damaged(Self.journal, ["ALTER TABLE ZSECTION DROP COLUMN ZTITLE"])
        defer { copy.cleanUp() }
        try Self.expectRefused(copy, code: NSPersistentStoreInvalidTypeError, "the table ZSECTION has no column ZTITLE")
        let wal = try Self.damaged(Self.wal, ["DROP TABLE Z_1FAVORITES"])
        defer { wal.cleanUp() }
        try Self.expectRefused(wal, code: NSPersistentStoreInvalidTypeError, "the table Z_1FAVORITES is missing")
    }

    @Test func zMaxLowerThanTheLargestKey() throws {
        for pair in [Self.journal, Self.wal] {
            let copy = try Self.damaged(pair, ["UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_SUPER = 0"])
            defer { copy.cleanUp() }
            try Self.expectRefused(copy, code: NSPersistentStoreInvalidTypeError, "Z_PRIMARYKEY.Z_MAX of")
        }
    }

    @Test func entityNumbersThatDifferFromTheModel() throws {
        let copy = try Self.damaged(Self.journal, ["UPDATE Z_PRIMARYKEY SET Z_NAME = 'Other' WHERE Z_ENT = 2"])
        defer { copy.cleanUp() }
        try Self.expectRefused(copy, code: NSPersistentStoreInvalidTypeError, "Z_PRIMARYKEY does not number entity Section 2")
    }

    /// A SQLite database of another program, and a file that is no database at all.
    @Test func aForeignFile() throws {
        let copy = try Self.damaged(Self.journal, ["DROP TABLE Z_METADATA"])
        defer { copy.cleanUp() }
        try Self.expectRefused(copy, code: NSPersistentStoreInvalidTypeError, "not made by Core Data")
        try Data("not a database, but more than a page of text\n".utf8 + Data(count: 5000)).write(to: copy.url)
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: copy.url.path + "-wal"))
        try Self.expectRefused(copy, code: NSPersistentStoreInvalidTypeError, "is not a SQLite database")
    }
}

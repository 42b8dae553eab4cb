import Foundation
import OpenCoreDataInspector
import Testing

/// The inspector never writes a store: its report, its model comparison and its fetches leave the store,
/// its `-wal` and `-shm` files as they were (copies of the fixtures, never the fixtures).
@Suite struct ReadOnlyInspectionTests {
    /// Rows that live only in the -wal file (DuckDuckGo's stores) are read and counted, and no byte of the
    /// store, the -wal or the -shm changes; nor when the store's own model fetches from it (OpenCoreData
    /// opens it with NSReadOnlyPersistentStoreOption, or refuses it: either way nothing is written).
    @Test func aStoreWithAWALFileKeepsEveryByte() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try AppleStores.copy("ddg-bookmarks", "Bookmarks_V4.sqlite", to: folder)
        let model = AppleStores.model("ddg-bookmarks", "BookmarksModel.xcdatamodeld")
        let before = StoreBytes(store)
        #expect(before.files["-wal"]?.count == 41232)
        let report = try OCDStoreTool.run([store, "--model", model])
        #expect(report.status == 0, "\(report.errors)")
        #expect(report.output.contains("The store matches model version \"BookmarksModel 4\".\n"))
        #expect(before.unchanged(store))
        let fetch = try OCDStoreTool.run([store, "--model", model, "--fetch", "BookmarkEntity", "--sort", "uuid"])
        #expect(fetch.status == 0 || fetch.errors.contains("ocd-store: OpenCoreData cannot open the store \(store): "), "\(fetch.errors)")
        // The library's SQLITE_OPEN_READONLY connection may refresh SQLite's -shm index (not data).
        #expect(before.unchanged(store, shm: false))
    }

    /// A store with an empty -wal and a stale -shm (objc.io's Moody: both committed beside it) and one with
    /// no -wal at all: read as immutable, no file is written or created.
    @Test func storesWithoutWALContentAreReadAsTheyAre() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let moody = try AppleStores.copy("objcio-moody", "Moody 5.moody", to: folder)
        let moodyBefore = StoreBytes(moody)
        #expect(try StoreInspector.run(store: moody, model: AppleStores.model("objcio-moody", "Moody.xcdatamodeld")).exitCode == 0)
        #expect(moodyBefore.unchanged(moody))
        let rollback = try AppleStores.copy("wibosco-migration-revised", "CoreDataMigration_Example_1.sqlite", to: folder)
        #expect(try StoreInspector.run(store: rollback).exitCode == 0)
        #expect(!FileManager.default.fileExists(atPath: rollback + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: rollback + "-shm"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                == ["CoreDataMigration_Example_1.sqlite", "Moody 5.moody", "Moody 5.moody-shm", "Moody 5.moody-wal"])
    }

    /// A store this project wrote, fetched through OpenCoreData (NSReadOnlyPersistentStoreOption): the
    /// store file keeps every byte.
    @Test func aFetchLeavesTheStoreAsItWas() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let (store, model) = try ZooStore.make(in: folder)
        let before = StoreBytes(store)
        let output = try StoreInspector.run(store: store, model: model, fetch: FetchOptions(entity: "Animal", predicate: "zoos.@count > 1"))
        #expect(output.text.hasPrefix("2 Animal objects"))
        #expect(before.unchanged(store))
    }
}

import Foundation
import OpenCoreData

/// Figure 14: lightweight migration of a store of `batchRows` rows (1M by default) when it is added
/// (issue #34): an added optional attribute (the library alters the table) against the same
/// `ALTER TABLE` in raw sqlite3, and a renamed attribute (the library rebuilds the table) against raw
/// `INSERT … SELECT` into a new table. Each run migrates a fresh copy of one version-1 store; the copy is
/// made before the clock starts.
extension Figures {
    func migrationFigures() throws {
        let n = settings.batchRows
        let (added, renamed) = try writeBenchModelFolders()
        let original = directory.appendingPathComponent("migrate-v1.sqlite")
        try makeVersion1Store(at: original, rows: n, model: try version(of: added, "Bench"))
        let addModel = try version(of: added, "Bench 2"), renameModel = try version(of: renamed, "Bench 3")
        let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        func copy() throws -> URL {
            let url = directory.appendingPathComponent("migrate-work.sqlite")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            try FileManager.default.copyItem(at: original, to: url)
            return url
        }
        func ours(_ model: NSManagedObjectModel) -> () throws -> Double {
            {
                let url = try copy()
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                let seconds = try time { _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options) }
                try coordinator.remove(coordinator.persistentStores[0])
                return seconds
            }
        }
        func raw(_ sql: String) -> () throws -> Double {
            {
                let url = try copy()
                // Closed after the clock stops, as ours is (closing checkpoints the WAL).
                let (db, seconds) = try timed { () throws -> RawDatabase in
                    let db = try RawDatabase(path: url.path)
                    try db.execute(sql)
                    return db
                }
                withExtendedLifetime(db) {}
                return seconds
            }
        }
        let alter = try measureInterleaved(repetitions: repetitions, [ours(addModel), raw("ALTER TABLE ZBENCHITEM ADD COLUMN ZNOTE VARCHAR")])
        table.append(ResultRow(figure: "14. migrate: add an optional attribute to \(Format.count(n)) rows (ALTER TABLE)", ours: Format.seconds(alter[0]),
                               raw: Format.seconds(alter[1]), ratio: Format.ratio(alter[0] / alter[1]) + " raw", target: "≤ 1.5× raw",
                               verdict: .check(alter[0] <= 1.5 * alter[1])))
        let addOnly = try measure(repetitions: repetitions) {
            let url = try copy()
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try version(of: added, "Bench"))
            let seconds = try time { _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url) }
            try coordinator.remove(coordinator.persistentStores[0])
            return seconds
        }
        table.append(ResultRow(figure: "14. of which adding the store without migrating (same file, version 1)", ours: Format.seconds(addOnly)))
        let rebuild = """
            BEGIN IMMEDIATE;
            ALTER TABLE ZBENCHITEM RENAME TO ZBENCHITEM_OLD;
            CREATE TABLE ZBENCHITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOST INTEGER, ZNAME VARCHAR );
            INSERT INTO ZBENCHITEM (Z_PK, Z_ENT, Z_OPT, ZCOST, ZNAME) SELECT Z_PK, Z_ENT, Z_OPT, ZPRICE, ZNAME FROM ZBENCHITEM_OLD;
            DROP TABLE ZBENCHITEM_OLD;
            COMMIT;
            """
        let rewrite = try measureInterleaved(repetitions: repetitions, [ours(renameModel), raw(rebuild)])
        let perSecond = { (seconds: Double) in Format.rate(Double(n) / seconds, unit: " rows/s") }
        table.append(ResultRow(figure: "14. migrate: rename an attribute of \(Format.count(n)) rows (table rebuilt)", ours: perSecond(rewrite[0]),
                               raw: perSecond(rewrite[1]) + " (INSERT … SELECT)", ratio: Format.ratio(rewrite[1] / rewrite[0]) + " raw throughput"))
    }

    /// Two versioned model folders of the entity `BenchItem` (name, price): version 2 adds the optional
    /// `note`; version 3 renames `price` to `cost` (renaming identifier `price`). Each folder's current
    /// version is the one migrated to.
    private func writeBenchModelFolders() throws -> (added: URL, renamed: URL) {
        func model(_ extra: [NSPropertyDescription], price: NSAttributeDescription) -> NSManagedObjectModel {
            NSManagedObjectModel(entities: [NSEntityDescription(name: "BenchItem", properties: [
                NSAttributeDescription(name: "name", type: .stringAttributeType), price] + extra)])
        }
        let version1 = model([], price: NSAttributeDescription(name: "price", type: .integer32AttributeType))
        let version2 = model([NSAttributeDescription(name: "note", type: .stringAttributeType)],
                             price: NSAttributeDescription(name: "price", type: .integer32AttributeType))
        let cost = NSAttributeDescription(name: "cost", type: .integer32AttributeType)
        cost.renamingIdentifier = "price"
        let version3 = model([], price: cost)
        func folder(_ name: String, _ versions: [(String, NSManagedObjectModel)]) throws -> URL {
            let url = directory.appendingPathComponent(name).appendingPathComponent("Bench.xcdatamodeld")
            for (version, model) in versions {
                let path = url.appendingPathComponent(version + ".xcdatamodel")
                try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
                try model.modelFileContents().write(to: path.appendingPathComponent("contents"))
            }
            try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": versions.last!.0 + ".xcdatamodel"], format: .xml, options: 0)
                .write(to: url.appendingPathComponent(".xccurrentversion"))
            return url
        }
        return (try folder("added", [("Bench", version1), ("Bench 2", version2)]),
                try folder("renamed", [("Bench", version1), ("Bench 3", version3)]))
    }

    private func version(of folder: URL, _ name: String) throws -> NSManagedObjectModel {
        let current = try NSManagedObjectModel(validatingContentsOf: folder)
        guard let version = current.versions.first(where: { $0.versionName == name }) else {
            throw MismatchError(description: "\(folder.path) has no version \(name)")
        }
        return version
    }

    /// A store made by the library with version 1 (WAL, as the library leaves its stores), then filled
    /// with `rows` rows by raw SQL (a recursive `INSERT … SELECT`) and checkpointed, so that each run
    /// copies one file.
    private func makeVersion1Store(at url: URL, rows: Int, model: NSManagedObjectModel) throws {
        progress("migrate: writing a version-1 store of \(rows) rows")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.remove(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url))
        let db = try RawDatabase(path: url.path)
        try db.execute("""
            BEGIN;
            WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM k WHERE x < \(rows))
            INSERT INTO ZBENCHITEM (Z_PK, Z_ENT, Z_OPT, ZPRICE, ZNAME) SELECT x, 1, 1, x % 1000, 'item ' || x FROM k;
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(rows) WHERE Z_ENT = 1;
            COMMIT;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
    }
}

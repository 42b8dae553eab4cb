@testable import OpenCoreData
import OpenCoreDataTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A child process migrates a store of 100k rows (a rename that rebuilds the table, an added attribute,
/// a new fetch index) and is killed with SIGKILL at a random moment; the store then is either untouched
/// (version 1's metadata) or fully migrated (version 2's), `PRAGMA integrity_check` is ok, and no row or
/// value is lost: opened with version 2 it holds every row with its values.
///
/// 5 kills per run (seeded: the seed is printed; `OCD_MIGRATION_SEED=S` repeats a run); `OCD_LONG=1`
/// (docs/LongRuns.md) runs 50, and `OCD_MIGRATION_KILLS=N` runs N.
@Suite("Migration crash consistency")
struct MigrationCrashTests {
    static let rows = 100_000

    /// Version 1: MigLedger (batch, text); version 2 renames `text` to `body` (renaming identifier
    /// `text`), adds the optional `note` and a fetch index on `batch`.
    static func writeModelFolder(in directory: URL) throws -> URL {
        let version1 = NSManagedObjectModel(entities: [NSEntityDescription(name: "MigLedger", properties: [
            NSAttributeDescription(name: "batch", type: .integer64AttributeType, optional: false, defaultValue: 0),
            NSAttributeDescription(name: "text", type: .stringAttributeType),
        ])])
        let body = NSAttributeDescription(name: "body", type: .stringAttributeType)
        body.renamingIdentifier = "text"
        let ledger = NSEntityDescription(name: "MigLedger", properties: [
            NSAttributeDescription(name: "batch", type: .integer64AttributeType, optional: false, defaultValue: 0), body,
            NSAttributeDescription(name: "note", type: .stringAttributeType),
        ])
        let version2 = NSManagedObjectModel(entities: [ledger])
        ledger.indexes = [NSFetchIndexDescription(name: "byBatch", elements: [NSFetchIndexElementDescription(property: ledger.propertiesByName["batch"]!, collationType: .binary)])]
        let folder = directory.appendingPathComponent("Ledger.xcdatamodeld")
        for (name, model) in [("Ledger", version1), ("Ledger 2", version2)] {
            let path = folder.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            try model.modelFileContents().write(to: path.appendingPathComponent("contents"))
        }
        try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Ledger 2.xcdatamodel"], format: .xml, options: 0)
            .write(to: folder.appendingPathComponent(".xccurrentversion"))
        return folder
    }

    static func model(_ folder: URL, version: String) throws -> NSManagedObjectModel {
        let current = try NSManagedObjectModel(validatingContentsOf: folder)
        return try #require(current.versions.first { $0.versionName == version })
    }

    /// A version-1 store of `rows` rows (made by the library, filled by SQL), rollback journal as an
    /// older app's store may be.
    static func makeStore(at url: URL, folder: URL) throws {
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: try model(folder, version: "Ledger"))
        try coordinator.remove(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url))
        let db = try SQLiteConnection(path: url.path)
        try db.execute("""
            BEGIN;
            WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM k WHERE x < \(rows))
            INSERT INTO ZMIGLEDGER (Z_PK, Z_ENT, Z_OPT, ZBATCH, ZTEXT) SELECT x, 1, 1, x % 977, 'row ' || x FROM k;
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(rows);
            COMMIT;
            PRAGMA wal_checkpoint(TRUNCATE);
            PRAGMA journal_mode = DELETE;
            """)
    }

    static func copy(_ from: URL, to: URL) throws {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: to.path + suffix) }
        try FileManager.default.copyItem(at: from, to: to)
    }

    /// Runs the migrating child and kills it `delay` microseconds after it says it is adding the store
    /// (never, when nil); returns whether it finished on its own.
    static func runChild(_ writer: URL, store: URL, folder: URL, killAfter delay: UInt32?, ready: () -> Void = {}) throws -> Bool {
        let process = Process()
        process.executableURL = writer
        process.arguments = ["--migrate", store.path, folder.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = pipe.fileHandleForReading.availableData  // "ready": the store is about to be added
        ready()
        if let delay {
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return process.terminationReason == .exit && process.terminationStatus == 0
    }

    @Test func killedMigrationsLeaveTheStoreUntouchedOrMigrated() throws {
        let writer = try #require(CrashConsistencyTests.writerURL, "ocd-crash-writer is built with the tests")
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let folder = try Self.writeModelFolder(in: directory.directory)
        let pristine = directory.directory.appendingPathComponent("pristine.sqlite")
        try Self.makeStore(at: pristine, folder: folder)
        let version1 = try Self.model(folder, version: "Ledger"), version2 = try Self.model(folder, version: "Ledger 2")
        for model in [version1, version2] { _ = try NSPersistentStoreCoordinator(validatingModel: model) }  // laid out
        let work = directory.url

        // How long a whole migration takes in a child, to spread the kills over it.
        try Self.copy(pristine, to: work)
        var start = Date()
        #expect(try Self.runChild(writer, store: work, folder: folder, killAfter: nil) { start = Date() }, "the child migrates when left alone")
        let duration = max(Date().timeIntervalSince(start), 0.02)

        let environment = ProcessInfo.processInfo.environment
        let kills = Int(environment["OCD_MIGRATION_KILLS"] ?? "") ?? (environment["OCD_LONG"] == "1" ? 50 : 5)
        let seed = UInt64(environment["OCD_MIGRATION_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("migration crash trials: seed \(seed) (OCD_MIGRATION_SEED), \(kills) kills over \(Int(duration * 1000)) ms")
        var rng = SeededRandom(seed: seed)
        var outcomes: [String: Int] = [:]
        for round in 0..<kills {
            try Self.copy(pristine, to: work)
            let delay = UInt32(Double(rng.int(0...1000)) / 1000 * duration * 1_000_000)
            let finished = try Self.runChild(writer, store: work, folder: folder, killAfter: delay)
            // A rollback journal left behind: the kill fell inside the migration's transaction.
            let journal = (try? FileManager.default.attributesOfItem(atPath: work.path + "-journal")[.size] as? NSNumber)?.intValue ?? 0
            let state = try Self.check(work, version1: version1, version2: version2, round: round, seed: seed)
            outcomes[finished ? "finished" : journal > 0 ? state + " (killed inside the transaction)" : state, default: 0] += 1
        }
        print("migration crash trials: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }

    /// The store after a kill: integrity ok, metadata of version 1 or 2 exactly, and with version 2
    /// (migrating if it was untouched) every row and value.
    static func check(_ url: URL, version1: NSManagedObjectModel, version2: NSManagedObjectModel, round: Int, seed: UInt64) throws -> String {
        let state: String
        do {
            let db = try SQLiteConnection(path: url.path)
            var integrity = ""
            try db.query("PRAGMA integrity_check") { if case .string(let s) = $0.value(0, as: .stringAttributeType) { integrity = s } }
            #expect(integrity == "ok", "round \(round), seed \(seed)")
            let metadata = try StoreMetadata.read(db, path: url.path)
            let untouched = version1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
            let migrated = version2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
            #expect(untouched != migrated, "round \(round), seed \(seed): the metadata is version 1's or version 2's")
            state = migrated ? "migrated" : "untouched"
        }
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: version2)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let db = try SQLiteConnection(path: url.path)
        var (count, batches, bodies): (Int64, Int64, Int64) = (0, 0, 0)
        try db.query("SELECT count(*), sum(ZBATCH), sum(ZBODY = 'row ' || Z_PK) FROM ZMIGLEDGER") { (count, batches, bodies) = ($0.int64(0), $0.int64(1), $0.int64(2)) }
        let expectedBatches = (1...Int64(rows)).reduce(0) { $0 + $1 % 977 }
        #expect(count == Int64(rows) && bodies == Int64(rows) && batches == expectedBatches, "round \(round), seed \(seed): every row and value")
        try coordinator.remove(coordinator.persistentStores[0])
        return state
    }
}

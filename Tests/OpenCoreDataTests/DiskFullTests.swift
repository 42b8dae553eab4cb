@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The disk fills up during a save (`SQLITE_FULL`, injected with `PRAGMA max_page_count` on the store's
/// writer connection, which is what a full disk looks like to SQLite): the save throws a Core Data error,
/// the context keeps every pending change, the store on disk is intact and holds none of the failed
/// save's rows, and once there is room again the same context's save succeeds.
@Suite("Disk full")
struct DiskFullTests {
    static let committed = 200
    static let attempted = 400
    static let bigText = String(repeating: "disk full ", count: 400)  // 4 kB: a page or more per row

    /// One row of `PRAGMA` output on the writer connection.
    static func pragma(_ backend: SQLiteStore, _ name: String) throws -> String {
        var value = ""
        try backend.write { db in try db.query("PRAGMA \(name)") { value = String(describing: $0.dynamicValue(0)) } }
        return value
    }

    /// Entries per batch number, counted through a new coordinator on the same file.
    static func countBatches(_ store: TemporaryStore) throws -> (integrity: String, sizes: [Int64: Int]) {
        let container = try store.container(LedgerModel.make())
        let backend = try container.persistentStoreCoordinator.sqlite
        var integrity = ""
        try backend.read { db in try db.query("PRAGMA integrity_check") { integrity = String(describing: $0.dynamicValue(0)) } }
        let context = container.newBackgroundContext()
        let sizes = try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Entry")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["batch"]
            var sizes: [Int64: Int] = [:]
            for row in try context.fetch(request) { sizes[row["batch"] as! Int64, default: 0] += 1 }
            return sizes
        }
        return (integrity, sizes)
    }

    @Test func aSaveThatFillsTheDiskThrowsKeepsTheChangesAndLeavesTheStoreIntact() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(LedgerModel.make())
        let backend = try container.persistentStoreCoordinator.sqlite
        let context = container.newBackgroundContext()

        // Batch 1 is saved while there is room.
        try context.performAndWait {
            for i in 0..<Self.committed {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue(1, forKey: "batch")
                entry.setValue(i, forKey: "index")
                entry.setValue(Self.bigText, forKey: "text")
            }
            try context.save()
        }

        // The disk is full: a few pages of room, far less than batch 2 needs.
        let pages = try #require(Int(try Self.pragma(backend, "page_count").filter(\.isNumber)))
        #expect(pages > 100, "batch 1 takes room")
        _ = try Self.pragma(backend, "max_page_count = \(pages + 4)")

        var saveError: Error?
        context.performAndWait {
            for i in 0..<Self.attempted {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue(2, forKey: "batch")
                entry.setValue(i, forKey: "index")
                entry.setValue(Self.bigText, forKey: "text")
            }
            do { try context.save() } catch { saveError = error }
        }
        let error = try #require(saveError as? CoreDataError, "the save throws a CoreDataError (got \(String(describing: saveError)))")
        print("disk full: the save threw code \(error.code): \(error.message)")
        #expect(error.domain == NSCocoaErrorDomain)
        #expect([NSSQLiteError, NSPersistentStoreSaveError, NSPersistentStoreOperationError].contains(error.code),
                "a Core Data save/SQLite error code, got \(error.code)")

        // The context keeps its changes.
        context.performAndWait {
            #expect(context.hasChanges)
            #expect(context.insertedObjects.count == Self.attempted)
            #expect(context.insertedObjects.allSatisfy { $0.objectID.isTemporaryID })
        }

        // The store is intact and holds batch 1 only (seen through a new coordinator).
        let (integrity, sizes) = try Self.countBatches(store)
        #expect(integrity == "string(\"ok\")")
        #expect(sizes == [1: Self.committed], "batch 1 whole, nothing of batch 2: \(sizes)")

        // Room again: the same context saves the same changes.
        _ = try Self.pragma(backend, "max_page_count = 1073741823")
        try context.performAndWait {
            try context.save()
            #expect(!context.hasChanges)
        }
        let (integrityAfter, sizesAfter) = try Self.countBatches(store)
        #expect(integrityAfter == "string(\"ok\")")
        #expect(sizesAfter == [1: Self.committed, 2: Self.attempted])
    }
}

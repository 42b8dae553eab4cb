import Foundation
@_spi(StoreDiagnostics) @testable import OpenCoreData
import Testing
import OpenCoreDataTesting

/// A batch delete on SQLite of rows with join rows and external files, with the keys bound as one JSON
/// array and as lists of at most 500 parameters (SQLite without JSON): every join row and file of the
/// deleted rows goes, nothing else does, in a number of statements that follows the chunks, not the rows
/// (issue 51, item 5).
@Suite("Batch delete by key lists")
struct BatchDeleteKeyListTests {
    /// Volume (number, scan: binary, external storage) ←→ Shelf, many-to-many.
    static func model() -> NSManagedObjectModel {
        let scan = NSAttributeDescription(name: "scan", type: .binaryDataAttributeType)
        scan.allowsExternalBinaryDataStorage = true
        let volume = NSEntityDescription(name: "Volume", properties: [
            NSAttributeDescription(name: "number", type: .integer64AttributeType), scan,
            NSRelationshipDescription(name: "shelves", destination: "Shelf", inverse: "volumes", toMany: true),
        ])
        let shelf = NSEntityDescription(name: "Shelf", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "volumes", destination: "Volume", inverse: "shelves", toMany: true),
        ])
        return NSManagedObjectModel(entities: [volume, shelf])
    }

    @Test(arguments: [true, false])
    func rowsJoinRowsAndFilesGoByChunks(json: Bool) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        let sqlite = container.persistentStoreCoordinator.persistentStores[0].backend as! SQLiteStore
        sqlite.usesJSONKeyLists = json
        let folder = store.directory.appendingPathComponent(".Test_SUPPORT/_EXTERNAL_DATA")
        func files() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).count }
        let scan = Data(repeating: 7, count: ExternalBinaryStorage.threshold + 1)
        let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
        for number in 0..<1_201 {
            let volume = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: context)
            volume.setValue(number, forKey: "number")
            if number % 200 == 0 { volume.setValue(scan, forKey: "scan") }
            volume.setValue(NSSet(object: shelf), forKey: "shelves")
        }
        try context.save()
        #expect(files() == 7)

        let request = NSFetchRequest<any NSFetchRequestResult>(entityName: "Volume")
        request.predicate = NSPredicate(format: "number < 1200")
        let before = sqlite.queryCount
        let result = try context.execute(NSBatchDeleteRequest(fetchRequest: request)) as! NSBatchDeleteResult
        let statements = sqlite.queryCount - before
        #expect(result.result as? Bool == true)
        // The match; then per chunk (3 of 500 keys without JSON, 1 with): the members read, the files
        // read, the join rows deleted, the rows deleted.
        #expect(statements <= (json ? 8 : 16), "\(statements) statements")
        #expect(files() == 1)
        var pairs: [[Int64]] = []
        try sqlite.write { db in
            let join = sqlite.joinTables[0].table.name
            try db.query("SELECT count(*) FROM \(join)") { pairs.append([$0.int64(0)]) }
            try db.query("SELECT count(*), min(ZNUMBER) FROM ZVOLUME") { pairs.append([$0.int64(0), $0.int64(1)]) }
            try db.query("SELECT count(*) FROM ZSHELF") { pairs.append([$0.int64(0)]) }
        }
        #expect(pairs == [[1], [1, 1200], [1]])
    }
}

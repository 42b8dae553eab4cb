@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

@Suite("Readers and the writer")
struct ReaderWriterTests {
    /// While the writer connection is inside an open transaction with an uncommitted insert, a fetch
    /// completes (on a reader connection) and sees the last committed state.
    @Test func aFetchIsNotBlockedByAnOpenWriteTransaction() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            SeedModel.insertProducts(reader, count: 3)
            try reader.save()
        }
        let backend = try container.persistentStoreCoordinator.sqlite
        #expect(throws: RollBack.self) { try backend.write { db in
            try db.transaction {
                try db.run("INSERT INTO ZPRODUCTS (Z_PK, Z_ENT, Z_OPT, ZNAME, ZPRICE) VALUES (1000, 1, 1, 'uncommitted', 1)")
                let seen = try reader.performAndWait { try reader.count(for: NSFetchRequest<Products>(entityName: "Products")) }
                #expect(seen == 3)
                throw RollBack()  // roll the insert back
            }
        } }
        #expect(try reader.performAndWait { try reader.count(for: NSFetchRequest<Products>(entityName: "Products")) } == 3)
    }

    struct RollBack: Error {}
}

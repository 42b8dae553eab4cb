import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// A fetch of every matching row sorted by a column an index begins with reads the table through and
/// sorts (`ORDER BY +t0.ZNAME …`), rather than reading it row by row in the index's order; a fetch with a
/// limit and a batched fetch's keys still follow the index (issue 51, item 4). Same objects, same order.
@Suite("Fetch index and sort order")
struct FetchIndexOrderTests {
    func store(indexed: Bool) throws -> (TemporaryStore, NSPersistentContainer) {
        let model = makeProductsModel()
        if indexed { model.entitiesByName["Products"]!.compoundIndexes = [["name", "price"]] }
        let store = TemporaryStore()
        let container = try store.container(model)
        insertProducts(container.viewContext, count: 300, seed: 7)
        try container.viewContext.save()
        container.viewContext.reset()
        return (store, container)
    }

    func request(limit: Int = 0) -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: false)]
        request.fetchLimit = limit
        return request
    }

    /// SQLite's plan of a statement, one detail per line.
    func plan(_ sql: String, _ container: NSPersistentContainer) throws -> [String] {
        var details: [String] = []
        try container.persistentStoreCoordinator.sqlite.read { db in
            try db.query("EXPLAIN QUERY PLAN " + sql) { details.append($0.value(3, as: .stringAttributeType).anyValue as? String ?? "") }
        }
        return details
    }

    @Test func aWholeFetchSortsInsteadOfFollowingTheIndex() throws {
        let (store, container) = try store(indexed: true)
        defer { store.cleanUp() }
        let sqlite = try container.persistentStoreCoordinator.sqlite
        var all: [Products] = [], first: [Products] = []
        let whole = try sqlite.recordingSQL { all = try container.viewContext.fetch(request()) }
        let limited = try sqlite.recordingSQL { first = try container.viewContext.fetch(request(limit: 20)) }
        #expect(whole == ["SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0 ORDER BY +t0.ZNAME, t0.ZPRICE DESC, t0.Z_PK"])
        #expect(limited == ["SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0 ORDER BY t0.ZNAME, t0.ZPRICE DESC, t0.Z_PK LIMIT 20"])
        let wholePlan = try plan(whole[0], container), limitedPlan = try plan(limited[0], container)
        #expect(wholePlan.contains("SCAN t0") && wholePlan.contains { $0.contains("TEMP B-TREE FOR ORDER BY") }, "\(wholePlan)")
        #expect(limitedPlan.contains { $0.contains("Z_Products_compoundIndex1") }, "\(limitedPlan)")
        // The same order as in memory, and the limited fetch is its beginning.
        let expected = all.sorted { ($0.name!, -$0.price, $0.objectID.primaryKey!) < ($1.name!, -$1.price, $1.objectID.primaryKey!) }
        #expect(all.map(\.objectID) == expected.map(\.objectID))
        #expect(first.map(\.objectID) == Array(all.prefix(20)).map(\.objectID))
    }

    @Test func withoutAnIndexTheSQLIsUnchanged() throws {
        let (store, container) = try store(indexed: false)
        defer { store.cleanUp() }
        let whole = try container.persistentStoreCoordinator.sqlite.recordingSQL { _ = try container.viewContext.fetch(request()) }
        #expect(whole == ["SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0 ORDER BY t0.ZNAME, t0.ZPRICE DESC, t0.Z_PK"])
    }
}

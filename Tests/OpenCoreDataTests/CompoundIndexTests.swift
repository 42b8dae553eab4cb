import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// `NSEntityDescription.compoundIndexes` (deprecated in Core Data, still set by apps): lists of property
/// names or descriptions that the SQLite store makes compound indexes of, through the fetch indexes they
/// make.
@Suite("compoundIndexes")
struct CompoundIndexTests {
    @Test func readingReturnsWhatWasSetAndIndexesFollow() throws {
        let model = makeProductsModel()
        let products = try #require(model.entitiesByName["Products"])
        let price = try #require(products.propertiesByName["price"])
        let byName = NSFetchIndexDescription(name: "byName", elements: [NSFetchIndexElementDescription(propertyName: "name", collationType: .binary)])
        products.indexes = [byName]
        products.compoundIndexes = [["name", "price"], [price]]
        #expect(products.compoundIndexes.count == 2)
        #expect(products.compoundIndexes[0] as? [String] == ["name", "price"])
        #expect((products.compoundIndexes[1].first as? NSPropertyDescription) === price)
        #expect(products.indexes.map(\.name) == ["byName", "compoundIndex2", "compoundIndex3"])
        #expect(products.indexes[1].elements.map(\.propertyName) == ["name", "price"])
        #expect(products.indexes[2].elements.first?.property === price)
        #expect(products.indexes.allSatisfy { $0.entity === products })
        // Setting again replaces the indexes the earlier value made, and keeps the others.
        products.compoundIndexes = [["price", "name"]]
        #expect(products.indexes.map(\.name) == ["byName", "compoundIndex2"])
        #expect(products.indexes[1].elements.map(\.propertyName) == ["price", "name"])
        products.compoundIndexes = []
        #expect(products.indexes.map(\.name) == ["byName"])
    }

    /// The store creates the index (its SQL text as SQLite keeps it), and SQLite's plan uses it for a
    /// fetch on both columns.
    @Test func theStoreCreatesTheIndexAndQueriesUseIt() throws {
        let model = makeProductsModel()
        model.entitiesByName["Products"]!.compoundIndexes = [["name", "price"], ["nothing"]]
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(model)
        let indexes = try SQLiteTestAccess.values("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'Z\\_Products\\_%' ESCAPE '\\' ORDER BY name", store.url)
        #expect(indexes == [[.string("CREATE INDEX Z_Products_compoundIndex1 ON ZPRODUCTS (ZNAME COLLATE BINARY ASC, ZPRICE COLLATE BINARY ASC)")]])
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.predicate = NSPredicate(format: "name == %@ AND price > %d", "Сыр", 10)
        let plan = try FetchPlan(request, model: model)
        let (sql, arguments) = try container.persistentStoreCoordinator.sqlite.selectSQL(plan, limited: true)
        var details: [String] = []
        try container.persistentStoreCoordinator.sqlite.read { db in
            try db.query("EXPLAIN QUERY PLAN " + sql, arguments) { details.append($0.value(3, as: .stringAttributeType).anyValue as? String ?? "") }
        }
        #expect(details.contains { $0.contains("USING INDEX Z_Products_compoundIndex1 (ZNAME=? AND ZPRICE>?)") }, "\(details)")
    }
}

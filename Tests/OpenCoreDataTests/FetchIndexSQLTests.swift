import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A partial index predicate becomes the SQLite index's `WHERE`; `shouldRefreshRefetchedObjects`.
@Suite("Fetch index SQL and refetching")
struct FetchIndexSQLTests {
    @Test func aPartialIndexPredicateBecomesTheIndexWhereClause() throws {
        let model = FetchedPropertyTests.model(predicate: "shelfLabel == $FETCH_SOURCE.label")
        let book = try #require(model.entitiesByName["Book"])
        let index = NSFetchIndexDescription(name: "heavy", elements: [NSFetchIndexElementDescription(propertyName: "weight", collationType: .binary)])
        index.partialIndexPredicate = NSPredicate(format: "weight > 10 AND title != nil AND shelfLabel == %@", "it's")
        book.indexes = [index]
        _ = try FetchedPropertyTests.container(model)
        let sql = ModelIndexes.indexes([book]).map { SQLitePrinter.sql(.createIndex($0)) }
        #expect(sql.contains { $0.hasPrefix("CREATE INDEX IF NOT EXISTS Z_Book_heavy ON ZBOOK (ZWEIGHT COLLATE BINARY ASC) WHERE (ZWEIGHT > 10 AND ZTITLE IS NOT NULL AND ZSHELFLABEL = 'it''s')") }, "\(sql)")
        index.partialIndexPredicate = NSPredicate(format: "title BEGINSWITH 'a'")
        #expect(!ModelIndexes.indexes([book]).contains { $0.name == "Z_Book_heavy" })
    }

    @Test func aSQLiteStoreCreatesThePartialIndex() throws {
        let model = makeProductsModel()
        let index = NSFetchIndexDescription(name: "pricey", elements: [NSFetchIndexElementDescription(propertyName: "price", collationType: .binary)])
        index.partialIndexPredicate = NSPredicate(format: "price > 3")
        model.entitiesByName["Products"]!.indexes = [index]
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(model)
        let sql = try SQLiteTestAccess.values("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'Z_Products_pricey'", store.url)
        #expect(sql == [[.string("CREATE INDEX Z_Products_pricey ON ZPRODUCTS (ZPRICE COLLATE BINARY ASC) WHERE ZPRICE > 3")]])
    }

    @Test func shouldRefreshRefetchedObjectsUpdatesLoadedObjects() throws {
        let container = try FetchedPropertyTests.container(FetchedPropertyTests.model(predicate: "weight > 0"))
        let context = container.viewContext
        FetchedPropertyTests.book("Dune", "A", 5, in: context)
        try context.save()
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let book = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))[0]
            book.setValue(7, forKey: "weight")
            try other.save()
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        #expect(try context.fetch(request)[0].value(forKey: "weight") as? Int == 5)
        request.shouldRefreshRefetchedObjects = true
        #expect(try context.fetch(request)[0].value(forKey: "weight") as? Int == 7)
    }
}

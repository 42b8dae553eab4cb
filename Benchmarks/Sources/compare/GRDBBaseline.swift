import Foundation
import GRDB

/// GRDB's record for figure 1, decoded by column index.
struct Product: FetchableRecord {
    /// `ZNAME`.
    var name: String
    /// `ZPRICE`.
    var price: Int32

    /// Reads columns 0 and 1.
    init(row: Row) {
        name = row[0]
        price = row[1]
    }
}

/// The GRDB variant: a `DatabaseQueue` on the same file.
final class GRDBDatabase {
    let queue: DatabaseQueue

    /// Opens the database at `path`, with the library's journal settings.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// `Product.fetchAll` for `sql`, with `limit` bound to its one `?` when given.
    func fetchProducts(_ sql: String, limit: Int32?) throws -> [Product] {
        try queue.read { db in try Product.fetchAll(db, sql: sql, arguments: limit.map { [$0] } ?? []) }
    }

    /// `Row.fetchAll` for `sql` with `limit` bound: GRDB's closest thing to dictionary results.
    func fetchRows(_ sql: String, limit: Int32) throws -> [Row] {
        try queue.read { db in try Row.fetchAll(db, sql: sql, arguments: [limit]) }
    }

    /// `Int.fetchOne` of a `SELECT COUNT(*)` with `limit` bound.
    func count(_ sql: String, limit: Int32) throws -> Int {
        try queue.read { db in try Int.fetchOne(db, sql: sql, arguments: [limit]) ?? 0 }
    }

    /// Creates the library's schema for `Products` in an empty database (WAL journal).
    func createProductsSchema() throws {
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: StoreSQL.createTable)
            try db.execute(sql: StoreSQL.createIndex)
        }
    }

    /// Inserts `data` in one write transaction with one cached statement, executed once per row.
    func insert(_ data: ProductData) throws {
        try queue.write { db in
            let statement = try db.cachedStatement(sql: StoreSQL.insert)
            for i in 0..<data.count {
                try statement.execute(arguments: [Int64(i + 1), 1, data.names[i], data.prices[i]])
            }
        }
    }
}

import CSQLiteBench
import Foundation

/// SQLite copies bound text and blobs (`SQLITE_TRANSIENT`).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// What the raw baseline builds for each row: the least a Swift program needs to hold a product.
final class RawProduct {
    /// `ZNAME`.
    let name: String
    /// `ZPRICE`.
    let price: Int32

    /// A product read from a row.
    init(name: String, price: Int32) {
        self.name = name
        self.price = price
    }
}

/// Figure 1's floor per row: a product with the identity, entity and version the library reads too.
final class RawProductRow {
    let pk: Int64, entity: Int32, version: Int64
    let name: String
    let price: Int32

    init(pk: Int64, entity: Int32, version: Int64, name: String, price: Int32) {
        (self.pk, self.entity, self.version, self.name, self.price) = (pk, entity, version, name, price)
    }
}

/// A SQLite failure in a baseline.
struct RawSQLiteError: Error, CustomStringConvertible {
    /// SQLite's message and the SQL that failed.
    let description: String
}

/// The baseline: one connection through the SQLite C API, prepared statements, no layer in between.
final class RawDatabase {
    let handle: OpaquePointer

    /// Opens (or creates) the database at `path`.
    init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw RawSQLiteError(description: "cannot open \(path)")
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    /// The linked SQLite's version, such as `3.46.1`.
    static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    /// Creates the library's schema for `Products` in an empty database, with the library's journal
    /// settings (WAL, `synchronous = NORMAL`).
    func createProductsSchema() throws {
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
        try execute(StoreSQL.createTable)
        try execute(StoreSQL.createIndex)
    }

    /// Runs `sql` (its one `?` bound to `limit` when given), handing each row's statement to `row`: the
    /// loop every baseline read shares (step until done, the statement finalized).
    private func forEachRow(_ sql: String, limit: Int32? = nil, _ row: (OpaquePointer) -> Void) throws {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        if let limit { sqlite3_bind_int(statement, 1, limit) }
        while true {
            let rc = sqlite3_step(statement)
            guard rc == SQLITE_ROW else {
                guard rc == SQLITE_DONE else { throw error(sql) }
                return
            }
            row(statement)
        }
    }

    /// Runs `sql` (one `?`, bound to `limit` when given) and builds a ``RawProduct`` from columns 0 and 1
    /// of each row.
    func fetchProducts(_ sql: String, limit: Int32?) throws -> [RawProduct] {
        var products: [RawProduct] = []
        try forEachRow(sql, limit: limit) { statement in
            let name = sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
            products.append(RawProduct(name: name, price: sqlite3_column_int(statement, 1)))
        }
        return products
    }

    /// Runs `sql` (columns `Z_PK, Z_ENT, Z_OPT, ZNAME, ZPRICE`) with one `?` bound to `limit`, into
    /// small objects holding all five: figure 1's floor.
    func fetchProductRows(_ sql: String, limit: Int32) throws -> [RawProductRow] {
        var rows: [RawProductRow] = []
        try forEachRow(sql, limit: limit) { statement in
            let name = sqlite3_column_text(statement, 3).map { String(cString: $0) } ?? ""
            rows.append(RawProductRow(pk: sqlite3_column_int64(statement, 0), entity: sqlite3_column_int(statement, 1),
                                      version: sqlite3_column_int64(statement, 2), name: name, price: sqlite3_column_int(statement, 4)))
        }
        return rows
    }

    /// Runs `sql` and collects column 0 of each row as an integer (primary keys), and column 1 (the
    /// entity number) when the query has one, as the library's batched fetch reads them.
    func fetchKeys(_ sql: String) throws -> [Int64] {
        var keys: [Int64] = []
        var entities: [Int32] = []
        try forEachRow(sql) { statement in
            keys.append(sqlite3_column_int64(statement, 0))
            if sqlite3_column_count(statement) > 1 { entities.append(sqlite3_column_int(statement, 1)) }
        }
        blackHole(entities.count)
        return keys
    }

    /// Runs a `SELECT COUNT(*)` with one `?` bound to `limit`.
    func count(_ sql: String, limit: Int32) throws -> Int {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int(statement, 1, limit)
        guard sqlite3_step(statement) == SQLITE_ROW else { throw error(sql) }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// Inserts `data` in one transaction with one prepared `INSERT`, bound, stepped and reset per row.
    func insert(_ data: ProductData) throws {
        try execute("BEGIN IMMEDIATE")
        let statement = try prepare(StoreSQL.insert)
        for i in 0..<data.count {
            sqlite3_bind_int64(statement, 1, Int64(i + 1))
            sqlite3_bind_int64(statement, 2, 1)
            sqlite3_bind_text(statement, 3, data.names[i], -1, transient)
            sqlite3_bind_int(statement, 4, data.prices[i])
            guard sqlite3_step(statement) == SQLITE_DONE else {
                sqlite3_finalize(statement)
                throw error(StoreSQL.insert)
            }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        try execute("COMMIT")
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error(sql) }
        return statement
    }

    func error(_ sql: String) -> RawSQLiteError {
        RawSQLiteError(description: "\(String(cString: sqlite3_errmsg(handle))) — \(sql)")
    }
}

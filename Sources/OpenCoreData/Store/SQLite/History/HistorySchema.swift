import Foundation

/// Core Data's persistent history tables, as a store written with `NSPersistentHistoryTrackingKey`
/// holds them (the fixture `coredataplus-samplemodel2-history`): `ATRANSACTION` (one row per saved
/// transaction, its strings by key into `ATRANSACTIONSTRING`), `ACHANGE` (one row per changed object),
/// their entity numbers 16001–16003 in `Z_PRIMARYKEY`, and the same indexes.
enum HistorySchema {
    static let changeEntity = 16001
    static let transactionEntity = 16002
    static let stringEntity = 16003

    static let statements = [
        "CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE IF NOT EXISTS ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0)",
    ]

    /// Creates the tables (when missing) and the tombstone columns the model needs.
    static func create(_ db: SQLiteConnection, model: NSManagedObjectModel) throws {
        for statement in statements { try db.execute(statement) }
        let needed = model.entities.compactMap { $0.layout?.historyTombstoneSlots.count }.max() ?? 0
        var existing = Set<String>()
        try db.query("SELECT name FROM pragma_table_info('ACHANGE')") { row in
            if case .string(let name) = row.value(0, as: .stringAttributeType) { existing.insert(name) }
        }
        for k in 0..<needed where !existing.contains("ZTOMBSTONE\(k)") {
            try db.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(k)")
        }
    }

    /// Whether the file has the history tables.
    static func exists(_ db: SQLiteConnection) throws -> Bool {
        var found = false
        try db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ATRANSACTION'") { _ in found = true }
        return found
    }

    /// The changed slots of an update as `ZCOLUMNS`: bit k of byte k / 8 set for slot k.
    static func columnsBlob(_ slots: [Int]) -> Data {
        var bytes = [UInt8](repeating: 0, count: (slots.max() ?? 0) / 8 + 1)
        for slot in slots { bytes[slot / 8] |= 1 << UInt8(slot % 8) }
        return Data(bytes)
    }

    /// The slots a `ZCOLUMNS` value names.
    static func slots(ofColumnsBlob data: Data) -> [Int] {
        data.enumerated().flatMap { index, byte in (0..<8).filter { byte & (1 << UInt8($0)) != 0 }.map { index * 8 + $0 } }
    }
}

extension SQLiteStore {
    /// Creates the history tables when the store tracks history, and counts the tombstone columns.
    func prepareHistory() throws {
        try wrap {
            try write { db in
                if tracksHistory { try HistorySchema.create(db, model: model) }
                guard try HistorySchema.exists(db) else { return }
                var width = 0
                try db.query("SELECT name FROM pragma_table_info('ACHANGE') WHERE name LIKE 'ZTOMBSTONE%'") { _ in width += 1 }
                historyTombstoneWidth = width
            }
        }
    }
}

import Foundation

/// History's tables in a SQLite store (``HistoryTables``): made when missing, their tombstone columns
/// counted through SQLite's own catalog, and `ZCOLUMNS`, the changed slots of an update.
enum HistorySchema {
    /// Creates the tables (when missing) and the tombstone columns the model needs.
    static func create(_ db: SQLiteConnection, model: NSManagedObjectModel) throws {
        for change in HistoryTables.schema { try db.execute(change) }
        for row in HistoryTables.primaryKeyRows { try db.run(row) }
        let needed = model.entities.compactMap { $0.layout?.historyTombstoneSlots.count }.max() ?? 0
        var existing = Set<String>()
        try db.query("SELECT name FROM pragma_table_info('ACHANGE')") { row in
            if case .string(let name) = row.value(0, as: .stringAttributeType) { existing.insert(name) }
        }
        for k in 0..<needed where !existing.contains("ZTOMBSTONE\(k)") {
            try db.execute(HistoryTables.tombstoneColumn(k))
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

import Foundation

extension SQLiteStore {
    /// Writes one `ATRANSACTION` row and its `ACHANGE` rows, inside the caller's transaction, when the
    /// store tracks history and something changed.
    func recordHistory(_ records: [HistoryRecord], origin: HistoryOrigin, _ db: SQLiteConnection) throws {
        guard tracksHistory, !records.isEmpty else { return }
        let number = try reserveKeys(root: HistoryTables.transactionEntity, count: 1, db)
        let strings = try [origin.author, HistoryTables.bundleID, origin.contextName, HistoryTables.processName].map { name -> Value in
            guard let name else { return .null }
            return .int(try historyStringKey(name, db))
        }
        try db.run(HistoryTables.transactionRow(number, strings: strings, timestamp: Date().timeIntervalSinceReferenceDate))
        var next = try reserveKeys(root: HistoryTables.changeEntity, count: records.count, db)
        let statement = try db.statement(SQLitePrinter.text(HistoryTables.changeRow(tombstones: historyTombstoneWidth)))
        for record in records {
            let arguments = HistoryTables.changeArguments(record, id: next, transaction: number, width: historyTombstoneWidth)
            _ = try db.run(statement, arguments)
            next += 1
        }
    }

    /// The key of a string in `ATRANSACTIONSTRING`, added when new.
    private func historyStringKey(_ name: String, _ db: SQLiteConnection) throws -> Int64 {
        var found: Int64?
        try db.query("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", [.string(name)]) { found = $0.int64(0) }
        if let found { return found }
        let pk = try reserveKeys(root: HistoryTables.stringEntity, count: 1, db)
        try db.run(HistoryTables.stringRow(pk, name))
        return pk
    }

    /// The preserved values of rows about to be deleted (read inside the deleting transaction), by key.
    func historyTombstones(_ rows: [(layout: EntityLayout, pk: Int64)], _ db: SQLiteConnection) throws -> [Int64: [Value]] {
        guard tracksHistory else { return [:] }
        var result: [Int64: [Value]] = [:]
        for (layout, pk) in rows {
            let slots = layout.historyTombstoneSlots
            guard !slots.isEmpty else { continue }
            let columns = slots.map { layout.columns[$0]! }.joined(separator: ", ")
            try db.query("SELECT \(columns) FROM \(table(for: layout).name) WHERE Z_PK = ?", [.int(pk)]) { row in
                result[pk] = slots.indices.map { row.value(Int32($0), as: layout.kinds[slots[$0]].attributeType ?? .undefinedAttributeType) }
            }
        }
        return result
    }
}

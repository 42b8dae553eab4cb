import Foundation

extension HistoryBound {
    /// The bound as a condition on `ATRANSACTION` (aliased `t`) and its value.
    var condition: (String, Value) {
        switch self {
        case .afterToken(let n), .afterNumber(let n): ("t.Z_PK > ?", .int(n))
        case .afterDate(let d): ("t.ZTIMESTAMP > ?", .double(d.timeIntervalSinceReferenceDate))
        case .throughNumber(let n): ("t.Z_PK <= ?", .int(n))
        case .beforeNumber(let n): ("t.Z_PK < ?", .int(n))
        case .beforeDate(let d): ("t.ZTIMESTAMP < ?", .double(d.timeIntervalSinceReferenceDate))
        }
    }
}

extension SQLiteStore {
    /// The transactions after a bound, in order. Throws `NSPersistentHistoryTokenExpiredError` when the
    /// bound is a token whose following history was deleted.
    func historyTransactions(_ bound: HistoryBound) throws -> [HistoryTransactionRow] {
        var rows: [HistoryTransactionRow] = []
        try wrap { try read { db in
            guard try HistorySchema.exists(db) else { return }
            if case .afterToken(let n) = bound { try checkNotExpired(n, db) }
            let (condition, argument) = bound.condition
            func name(_ alias: String) -> String { "(SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.\(alias))" }
            try db.query("SELECT t.Z_PK, t.ZTIMESTAMP, \(name("ZAUTHORTS")), \(name("ZBUNDLEIDTS")), \(name("ZCONTEXTNAMETS")), \(name("ZPROCESSIDTS")) FROM ATRANSACTION t WHERE \(condition) ORDER BY t.Z_PK",
                         [argument]) { row in
                func text(_ i: Int32) -> String? { if case .string(let s) = row.value(i, as: .stringAttributeType) { return s } else { return nil } }
                let seconds: Double = if case .double(let d) = row.value(1, as: .doubleAttributeType) { d } else { 0 }
                rows.append(HistoryTransactionRow(number: row.int64(0), timestamp: Date(timeIntervalSinceReferenceDate: seconds),
                                                  author: text(2), bundleID: text(3), contextName: text(4), processID: text(5)))
            }
        } }
        return rows
    }

    /// A token after transaction `n` is expired when transactions after it were deleted: history is
    /// deleted from the oldest on, so the first transaction left is then later than `n + 1`.
    private func checkNotExpired(_ n: Int64, _ db: SQLiteConnection) throws {
        var first: Int64 = 0, max: Int64 = 0
        try db.query("SELECT (SELECT ifnull(min(Z_PK), 0) FROM ATRANSACTION), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?)",
                     [.int(Int64(HistoryTables.transactionEntity))]) { (first, max) = ($0.int64(0), $0.int64(1)) }
        let firstLeft = first == 0 ? max + 1 : first
        guard n + 1 >= firstLeft || n >= max else {
            throw CoreDataError(NSPersistentHistoryTokenExpiredError,
                                "The history after transaction \(n) has been deleted (the oldest transaction left is \(first == 0 ? "none" : "\(first)")): fetch from a later token, or refetch everything.")
        }
    }

    /// The changes of some transactions, in order.
    func historyChanges(_ transactions: [Int64]) throws -> [HistoryChangeRow] {
        var rows: [HistoryChangeRow] = []
        let tombstones = (0..<historyTombstoneWidth).map { ", ZTOMBSTONE\($0)" }.joined()
        try wrap { try read { db in
            for chunk in SQLiteKeyList(transactions, json: usesJSONKeyLists).chunks {
                try db.query("SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstones) FROM ACHANGE WHERE ZTRANSACTIONID IN \(chunk.inOperand) ORDER BY Z_PK",
                             chunk.arguments) { row in
                    let entityID = Int(row.int64(2))
                    let columns: [Int]? = if case .data(let d) = row.value(5, as: .binaryDataAttributeType) { HistorySchema.slots(ofColumnsBlob: d) } else { nil }
                    var stone: [Value] = []
                    if let layout = model.entity(number: entityID)?.layout {
                        let slots = layout.historyTombstoneSlots
                        stone = slots.indices.map { row.value(Int32(6 + $0), as: layout.kinds[slots[$0]].attributeType ?? .undefinedAttributeType) }
                    }
                    rows.append(HistoryChangeRow(id: row.int64(0), kind: row.int64(1), entityID: entityID, pk: row.int64(3),
                                                 transaction: row.int64(4), columns: columns, tombstone: stone))
                }
            }
        } }
        return rows
    }

    /// Deletes the transactions a bound names, with their changes; returns how many.
    func deleteHistory(_ bound: HistoryBound) throws -> Int {
        if isReadOnly { throw readOnlyError("delete history") }
        return try fileTransaction { db in
            guard try HistorySchema.exists(db) else { return 0 }
            let (condition, argument) = bound.condition
            _ = try db.run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", [argument])
            return try db.run("DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", [argument])
        }
    }

    /// The number of the last transaction recorded (`nil` without history tables).
    func lastHistoryNumber() throws -> Int64? {
        var result: Int64?
        try wrap { try read { db in
            guard try HistorySchema.exists(db) else { return }
            try db.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(Int64(HistoryTables.transactionEntity))]) { result = $0.int64(0) }
        } }
        return result
    }
}

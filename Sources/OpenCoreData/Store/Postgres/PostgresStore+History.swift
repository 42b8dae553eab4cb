import Foundation

/// Persistent history in Core Data's layout (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`, the same
/// ``HistoryTables`` values the SQLite store writes), recorded inside each save's transaction. Transaction
/// numbers are reserved under `Z_PRIMARYKEY`'s row lock, held until the save commits: saves that record
/// history take their numbers in commit order, so a reader of "everything after transaction N" never
/// misses a transaction that committed later with a lower number. Tombstone values (`ZTOMBSTONE<k>`)
/// are kept as text (``PostgresTombstone``).
extension PostgresStore: HistoryStore {
    /// Creates the history tables when the store tracks history, and counts the tombstone columns.
    static func prepareHistory(_ session: any PostgresSession, model: NSManagedObjectModel, tracks: Bool) throws -> Int {
        // Only what is missing is made (``relations(_:)`` says why); the key rows with the tables.
        let made = try relations(session)
        if tracks {
            for change in HistoryTables.schema where !made.contains(change.madeName?.lowercased() ?? "") {
                _ = try session.run(try PostgresPrinter.sql(change), [])
            }
        }
        if tracks, !made.contains("atransaction") {
            for row in HistoryTables.primaryKeyRows {
                var context = SQLGenerationContext()
                let sql = try PostgresPrinter.sql(row, &context)
                _ = try session.run(sql, try [PostgresDatum](binding: context.arguments))
            }
        }
        var width = try tombstoneWidth(session)
        let needed = tracks ? model.entities.compactMap { $0.layout?.historyTombstoneSlots.count }.max() ?? 0 : 0
        while width < needed {
            _ = try session.run(try PostgresPrinter.sql(HistoryTables.tombstoneColumn(width)), [])
            width += 1
        }
        return width
    }

    private static func tombstoneWidth(_ session: any PostgresSession) throws -> Int {
        let found = try session.run("SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'achange' AND column_name LIKE 'ztombstone%'", [])
        return Int(found.rows.first?.first?.integer ?? 0)
    }

    /// Whether the store has history tables (it tracked history once).
    private func hasHistory() throws -> Bool {
        try run("SELECT to_regclass('atransaction') IS NOT NULL").rows.first?.first == .bool(true)
    }

    /// Records one save's (or batch request's) changes as a transaction, inside the caller's transaction;
    /// returns its number (`nil`: nothing recorded). Transactions that record history commit one at a
    /// time (the number's row lock is held until `COMMIT`), so the work after the lock is taken is kept
    /// short: the strings are looked up first, both numbers are reserved by one statement, and the changes
    /// are written by multi-row `INSERT`s.
    @discardableResult
    func recordHistory(_ records: [HistoryRecord], origin: HistoryOrigin, _ session: any PostgresSession) throws -> Int64? {
        guard tracksHistory, !records.isEmpty else { return nil }
        let strings = try [origin.author, HistoryTables.bundleID, origin.contextName, HistoryTables.processName].map { name -> Value in
            guard let name else { return .null }
            return .int(try historyStringKey(name, session))
        }
        let (number, firstChange) = try reserveHistoryNumbers(changes: records.count, session)
        try run(HistoryTables.transactionRow(number, strings: strings, timestamp: Date().timeIntervalSinceReferenceDate), on: session)
        let perStatement = max(1, 30_000 / (historyTombstoneWidth + 7))  // PostgreSQL binds at most 65,535 values
        var next = firstChange
        for start in stride(from: 0, to: records.count, by: perStatement) {
            let chunk = records[start..<min(start + perStatement, records.count)]
            var context = SQLGenerationContext()
            let sql = try PostgresPrinter.sql(HistoryTables.changeRow(tombstones: historyTombstoneWidth, count: chunk.count), &context)
            var arguments: [Value] = []
            for record in chunk {
                arguments += HistoryTables.changeArguments(record, id: next, transaction: number, width: historyTombstoneWidth,
                                                           stored: PostgresTombstone.stored)
                next += 1
            }
            _ = try run(sql, arguments, on: session)
        }
        return number
    }

    /// Reserves the transaction's number and `changes` change keys in one statement (both rows of
    /// `Z_PRIMARYKEY` locked until `COMMIT`); returns the number and the first change key.
    private func reserveHistoryNumbers(changes: Int, _ session: any PostgresSession) throws -> (Int64, Int64) {
        let (transaction, change) = (Int64(HistoryTables.transactionEntity), Int64(HistoryTables.changeEntity))
        let rows = try run("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + CASE WHEN Z_ENT = $1 THEN 1 ELSE $2 END WHERE Z_ENT IN ($1, $3) RETURNING Z_ENT, Z_MAX",
                           [.int(transaction), .int(Int64(changes)), .int(change)], on: session).rows
        let max = Dictionary(rows.compactMap { row in row[0].integer.flatMap { e in row[1].integer.map { (e, $0) } } }, uniquingKeysWith: { a, _ in a })
        guard let number = max[transaction], let lastChange = max[change] else {
            throw CoreDataError(NSPersistentStoreOperationError, "The PostgreSQL store at \(location) has no Z_PRIMARYKEY rows for its history.")
        }
        return (number, lastChange - Int64(changes) + 1)
    }

    /// The key of a history string (an author, a context or process name), made when missing. Keys read
    /// from the table are kept (the strings are never deleted); one made here is not, until it is read
    /// again after its transaction committed.
    /// Two transactions that both add a new string: the second's `INSERT` waits for the first to commit,
    /// then adds nothing (`ON CONFLICT DO NOTHING` on the unique name) and reads the first's key.
    private func historyStringKey(_ name: String, _ session: any PostgresSession) throws -> Int64 {
        if let known = historyStrings.withLock({ $0[name] }) { return known }
        func stored() throws -> Int64? {
            try run("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = $1", [.string(name)], on: session).rows.first?.first?.integer
        }
        if let found = try stored() {
            historyStrings.withLock { $0[name] = found }
            return found
        }
        let pk = try reserveKeys(root: HistoryTables.stringEntity, count: 1, session)
        if try run(HistoryTables.stringRow(pk, name, ignoringDuplicate: true), on: session) == 1 { return pk }
        guard let found = try stored() else {
            throw CoreDataError(NSPersistentStoreOperationError, "The PostgreSQL store at \(location) could not record the history string \"\(name)\".")
        }
        return found
    }

    /// The preserved values (`preservesValueInHistoryOnDeletion`) of rows about to be deleted.
    func historyTombstones(_ rows: [(layout: EntityLayout, pk: Int64)], _ session: any PostgresSession) throws -> [Int64: [Value]] {
        guard tracksHistory else { return [:] }
        var result: [Int64: [Value]] = [:]
        for (layout, pk) in rows {
            let slots = layout.historyTombstoneSlots
            guard !slots.isEmpty else { continue }
            let columns = slots.map { layout.columns[$0]! }.joined(separator: ", ")
            guard let row = try run("SELECT \(columns) FROM \(table(for: layout).name) WHERE Z_PK = $1", [.int(pk)], on: session).rows.first else { continue }
            result[pk] = slots.indices.map { row[$0].value(as: layout.kinds[slots[$0]].attributeType ?? .undefinedAttributeType) }
        }
        return result
    }

    func historyTransactions(_ bound: HistoryBound) throws -> [HistoryTransactionRow] {
        guard try hasHistory() else { return [] }
        if case .afterToken(let n) = bound { try checkNotExpired(n) }
        let (condition, argument) = bound.condition
        func name(_ column: String) -> String { "(SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.\(column))" }
        let sql = "SELECT t.Z_PK, t.ZTIMESTAMP, \(name("ZAUTHORTS")), \(name("ZBUNDLEIDTS")), \(name("ZCONTEXTNAMETS")), \(name("ZPROCESSIDTS")) FROM ATRANSACTION t WHERE \(condition.replacingOccurrences(of: "?", with: "$1")) ORDER BY t.Z_PK"
        return try run(sql, [argument]).rows.map { row in
            HistoryTransactionRow(number: row[0].integer ?? 0, timestamp: Date(timeIntervalSinceReferenceDate: row[1].real ?? 0),
                                  author: row[2].text, bundleID: row[3].text, contextName: row[4].text, processID: row[5].text)
        }
    }

    private func checkNotExpired(_ n: Int64) throws {
        let row = try run("SELECT (SELECT COALESCE(MIN(Z_PK), 0) FROM ATRANSACTION), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = $1)",
                          [.int(Int64(HistoryTables.transactionEntity))]).rows.first
        let first = row?[0].integer ?? 0, max = row?[1].integer ?? 0
        let firstLeft = first == 0 ? max + 1 : first
        guard n + 1 >= firstLeft || n >= max else {
            throw CoreDataError(NSPersistentHistoryTokenExpiredError,
                                "The history after transaction \(n) has been deleted (the oldest transaction left is \(first == 0 ? "none" : "\(first)")): fetch from a later token, or refetch everything.")
        }
    }

    func historyChanges(_ transactions: [Int64]) throws -> [HistoryChangeRow] {
        guard !transactions.isEmpty, try hasHistory() else { return [] }
        let width = historyTombstoneWidth
        let tombstones = (0..<width).map { ", ZTOMBSTONE\($0)" }.joined()
        let sql = "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstones) FROM ACHANGE WHERE ZTRANSACTIONID = ANY($1) ORDER BY Z_PK"
        return try run(sql, [Self.keyArray(transactions)]).rows.map { row in
            let entityID = Int(row[2].integer ?? 0)
            var stone: [Value] = []
            if let layout = model.entity(number: entityID)?.layout {
                let slots = layout.historyTombstoneSlots
                stone = slots.indices.map { 6 + $0 < row.count ? PostgresTombstone.value(row[6 + $0], as: layout.kinds[slots[$0]].attributeType ?? .undefinedAttributeType) : .null }
            }
            return HistoryChangeRow(id: row[0].integer ?? 0, kind: row[1].integer ?? 0, entityID: entityID, pk: row[3].integer ?? 0,
                                    transaction: row[4].integer ?? 0, columns: row[5].bytes.map(HistorySchema.slots(ofColumnsBlob:)), tombstone: stone)
        }
    }

    func deleteHistory(_ bound: HistoryBound) throws -> Int {
        if isReadOnly { throw readOnlyError("delete history") }
        guard try hasHistory() else { return 0 }
        let condition = bound.condition.0.replacingOccurrences(of: "?", with: "$1")
        return try transaction { session in
            try run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", [bound.condition.1], on: session)
            return try run("DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", [bound.condition.1], on: session).affected
        }
    }

    func lastHistoryNumber() throws -> Int64? {
        guard try hasHistory() else { return nil }
        return try run("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = $1", [.int(Int64(HistoryTables.transactionEntity))]).rows.first?.first?.integer
    }
}

extension SQLSchemaChange {
    /// The name of the table or index the change makes, nil for other changes.
    var madeName: String? {
        switch self {
        case .createTable(let table): return table.name
        case .createIndex(let index): return index.name
        default: return nil
        }
    }
}

/// A history tombstone's value as text in a `ZTOMBSTONE<k>` column (it holds values of any attribute
/// type), and back by the attribute's type.
enum PostgresTombstone {
    static func stored(_ value: Value) -> Value {
        switch value {
        case .null: return .null
        case .bool(let b): return .string(b ? "1" : "0")
        case .int(let i): return .string(String(i))
        case .double(let d): return .string(String(d))
        case .decimal(let d): return .string(d.description)
        case .string(let s): return .string(s)
        case .date(let d): return .string(String(d.timeIntervalSinceReferenceDate))
        case .data(let d): return .string(d.base64EncodedString())
        case .uuid(let u): return .string(u.uuidString)
        case .url(let u): return .string(u.absoluteString)
        default: return .null
        }
    }

    static func value(_ cell: PostgresDatum, as type: NSAttributeType) -> Value {
        guard let text = cell.text else { return .null }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: return Int64(text).map { .int($0) } ?? .null
        case .booleanAttributeType: return .bool(text == "1")
        case .doubleAttributeType, .floatAttributeType: return Double(text).map { .double($0) } ?? .null
        case .decimalAttributeType: return Decimal(string: text).map { .decimal($0) } ?? .null
        case .dateAttributeType: return Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
        case .binaryDataAttributeType, .transformableAttributeType: return Data(base64Encoded: text).map { .data($0) } ?? .null
        case .UUIDAttributeType: return UUID(uuidString: text).map { .uuid($0) } ?? .null
        case .URIAttributeType: return URL(string: text).map { .url($0) } ?? .null
        default: return .string(text)
        }
    }
}

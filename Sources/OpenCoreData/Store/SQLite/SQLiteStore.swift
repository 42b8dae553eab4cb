import CSQLite
import Foundation
import Logging

/// One row read by a fetch: its key, entity number, row version (`Z_OPT`) and (when asked) its values
/// by storage slot.
struct StoreRow: Sendable {
    let pk: Int64
    let entityID: Int
    let version: Int64
    let values: [Value]?
}

/// What a save writes, in one transaction.
struct StoreChangeset {
    struct Insert { let layout: EntityLayout; let pk: Int64?; let values: [Value] }
    /// `values` are the object's, `snapshot` what it read at row version `version`.
    struct Update { let layout: EntityLayout; let pk: Int64; let values: [Value]; let snapshot: [Value]; let version: Int64 }
    struct Delete { let layout: EntityLayout; let pk: Int64; let version: Int64 }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
}

/// What a save did: keys of inserted rows, and for each update the values and version now in the store
/// (after merging under the merge policy), or `nil` when the policy dropped the object's changes.
struct StoreSaveResult {
    var insertedKeys: [Int64] = []
    var updated: [(values: [Value], version: Int64)?] = []
}

/// An optimistic-locking failure: the row changed (or vanished) since the object read it.
struct StoreConflict {
    let index: Int
    let isDelete: Bool
    let storeValues: [Value]?
    let storeVersion: Int64
    let objectVersion: Int64
}

struct StoreConflictError: Error { let conflicts: [StoreConflict] }

/// The SQLite store: one database file (WAL journal) or an in-memory database, one table per entity
/// hierarchy, `Z_PRIMARYKEY` for key allocation and `Z_METADATA` for the store's identity and model hash.
///
/// Concurrency: one writer connection (saves, key allocation) and, for a file, two reader connections.
/// In WAL mode a reader sees the last committed state and is never blocked by a writer's transaction, so
/// fetches in one context proceed while another context saves. Each connection is used by one thread at
/// a time under its own lock. An in-memory store has one connection for both.
final class SQLiteStore: @unchecked Sendable {
    let connection: SQLiteConnection
    private let writerLock = NSLock()
    private let readers: [(connection: SQLiteConnection, lock: NSLock)]
    private let readerCounter = NSLock()
    private var nextReader = 0
    /// Rows last read or written, shared by every context of the coordinator.
    let rowCache = RowCache()
    let model: NSManagedObjectModel
    let identifier: String
    let tables: [Int: TableInfo]
    let entitiesByID: [Int: NSEntityDescription]
    /// The INSERT statement of each entity, by entity ID.
    private let insertSQL: [Int: String]

    /// True when the store was added with `NSReadOnlyPersistentStoreOption`: saves throw before writing.
    let isReadOnly: Bool
    /// False for a read-only store whose file has no `Z_OCDGENERATION` table (its generation reads as 0).
    private let hasGenerationTable: Bool
    /// The store file's path (`:memory:` for an in-memory store).
    let path: String

    /// Opens the store (see `SQLiteStore+Open.swift`); every failure is a `CoreDataError` naming the path.
    init(url: URL?, model: NSManagedObjectModel, options: StoreOpenOptions = StoreOpenOptions(), logger: Logger?) throws {
        self.model = model
        self.isReadOnly = options.readOnly
        self.path = url?.path ?? ":memory:"
        var entitiesByID: [Int: NSEntityDescription] = [:]
        for e in model.entities { entitiesByID[e.layout.entityID] = e }
        self.entitiesByID = entitiesByID
        var tables: [Int: TableInfo] = [:]
        for root in model.entities where root.superentity == nil {
            tables[root.layout.entityID] = TableInfo(root: root, entities: model.entities)
        }
        self.tables = tables
        var insertSQL: [Int: String] = [:]
        for e in model.entities { insertSQL[e.layout.entityID] = Self.insertSQL(e.layout, table: tables[e.layout.root.layout.entityID]!) }
        self.insertSQL = insertSQL
        let opened = try Self.open(url: url, model: model, tables: tables, options: options, logger: logger)
        connection = opened.writer
        readers = opened.readers.map { ($0, NSLock()) }
        identifier = opened.identifier
        hasGenerationTable = opened.hasGenerationTable
    }

    /// Runs `body` on a reader connection (the writer for an in-memory store).
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard !readers.isEmpty else { return try write(body) }
        let index = readerCounter.withLock { () -> Int in
            nextReader = (nextReader + 1) % readers.count
            return nextReader
        }
        let reader = readers[index]
        return try reader.lock.withLock { try body(reader.connection) }
    }

    /// Runs `body` on the writer connection.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writerLock.withLock { try body(connection) }
    }

    /// Queries run so far on all connections.
    var queryCount: Int {
        writerLock.withLock { connection.queryCount } + readers.reduce(0) { sum, r in sum + r.lock.withLock { r.connection.queryCount } }
    }

    func table(for layout: EntityLayout) -> TableInfo { tables[layout.root.layout.entityID]! }

    // MARK: - Fetching

    /// The `SELECT` for a plan: `columns` (or `table.selectList`), `WHERE`, `ORDER BY` unless `ordered` is
    /// false, and, if asked, `LIMIT`/`OFFSET`.
    func selectSQL(_ plan: FetchPlan, columns: String? = nil, limited: Bool, ordered: Bool = true, distinct: Bool = false,
                   groupBy: String? = nil) throws -> (String, [Value]) {
        let table = self.table(for: plan.layout)
        var sql = "SELECT \(distinct ? "DISTINCT " : "")\(columns ?? table.selectList) FROM \(table.name) t0"
        var conditions: [String] = []
        if let ids = plan.entityIDs {
            conditions.append(ids.count == 1 ? "t0.Z_ENT = \(ids[0])" : "t0.Z_ENT IN (\(ids.map(String.init).joined(separator: ", ")))")
        }
        var context = SQLGenerationContext()
        if let predicate = plan.predicate {
            var translator = PredicateTranslator(layout: plan.layout, entityName: plan.entity.name ?? "", context: context)
            let condition = try translator.condition(predicate)
            context = translator.context
            if condition != .literal(true) { conditions.append(SQLitePrinter.sql(condition, &context)) }
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if let groupBy { sql += " GROUP BY " + groupBy }
        var order = plan.sorts.map { s -> String in
            let column = SQLExpression.column(alias: SQLGenerationContext.rootAlias, name: s.column)
            let term = SQLitePrinter.sql(s.isString ? .collate(column, s.collation) : column, &context)
            return s.ascending ? term : term + " DESC"
        }
        // Ties break by store key, as in memory, for every fetch of objects or IDs (not for dictionaries).
        if groupBy == nil, !distinct, columns == nil || columns!.hasPrefix("t0.Z_PK") { order.append("t0.Z_PK") }
        if ordered, !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if limited, plan.limit > 0 || plan.offset > 0 {
            sql += " LIMIT \(plan.limit > 0 ? plan.limit : -1)"
            if plan.offset > 0 { sql += " OFFSET \(plan.offset)" }
        }
        return (sql, context.arguments)
    }

    func fetchRows(_ plan: FetchPlan, withValues: Bool, limited: Bool) throws -> [StoreRow] {
        let table = self.table(for: plan.layout)
        let (sql, arguments) = try selectSQL(plan, columns: withValues ? nil : "t0.Z_PK, t0.Z_ENT, t0.Z_OPT", limited: limited)
        var rows: [StoreRow] = []
        try wrap {
            try read { db in
                try db.query(sql, arguments) { row in
                    let entityID = Int(row.int64(1))
                    rows.append(StoreRow(pk: row.int64(0), entityID: entityID, version: row.int64(2),
                                         values: withValues ? values(of: row, entityID: entityID, table: table) : nil))
                }
            }
        }
        // Small fetches feed the shared row cache (faults in other contexts then cost no query). A large
        // fetch hands its values to its own objects only: filling the cache would cost a hash insert per
        // row and evict what other contexts use.
        if withValues, rows.count <= RowCache.largestFetchCached { rowCache.store(rows, root: table.rootEntityID) }
        return rows
    }

    private func values(of row: SQLiteStatement, entityID: Int, table: TableInfo) -> [Value] {
        guard let positions = table.slotPositions[entityID], let entity = entitiesByID[entityID] else { return [] }
        let attributes = entity.layout.attributes
        return positions.indices.map { slot in
            guard let column = positions[slot] else { return entity.layout.defaultValues[slot] }
            return row.value(column, as: attributes[slot].attributeType)
        }
    }

    /// The store's save generation (`Z_OCDGENERATION`): advanced by every save transaction, so a value
    /// recorded with derived data (the controller's cache) tells whether the store changed since.
    func generation() throws -> Int64 {
        var value: Int64 = 0
        guard hasGenerationTable else { return value }
        try wrap { try read { db in try db.query("SELECT Z_VALUE FROM Z_OCDGENERATION") { value = $0.int64(0) } } }
        return value
    }

    /// `SELECT COUNT(*)` of the matches, unordered; of the ordered window when the plan has a limit or offset.
    func countSQL(_ plan: FetchPlan) throws -> (String, [Value]) {
        let windowed = plan.limit > 0 || plan.offset > 0
        let (sql, arguments) = try selectSQL(plan, columns: windowed ? "t0.Z_PK" : "COUNT(*)", limited: true, ordered: windowed)
        return (windowed ? "SELECT COUNT(*) FROM (\(sql))" : sql, arguments)
    }

    func count(_ plan: FetchPlan) throws -> Int {
        let (sql, arguments) = try countSQL(plan)
        var count = 0
        try wrap { try read { db in try db.query(sql, arguments) { count = Int($0.int64(0)) } } }
        return count
    }

    /// Values of rows by primary key (for faults), in chunks of 500 keys.
    func loadRows(root: Int, pks: [Int64]) throws -> [Int64: StoreRow] {
        var result: [Int64: StoreRow] = [:]
        for start in stride(from: 0, to: pks.count, by: 500) {
            let chunk = Array(pks[start..<min(start + 500, pks.count)])
            try wrap { try read { db in result.merge(try loadRows(root: root, pks: chunk, db)) { _, new in new } } }
        }
        rowCache.store(Array(result.values), root: root)
        return result
    }

    // MARK: - Saving

    /// Reserves `count` primary keys for a hierarchy (Core Data's `Z_PRIMARYKEY.Z_MAX`).
    func allocatePrimaryKeys(root: Int, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        if isReadOnly { throw readOnlyError("allocate permanent IDs") }
        var keys: [Int64] = []
        try wrap { try write { db in try db.transaction { keys = try reserveKeys(root: root, count: count, db) } } }
        return keys
    }

    /// Advances `Z_MAX` of a hierarchy by `count` inside the caller's transaction; returns the keys.
    private func reserveKeys(root: Int, count: Int, _ db: SQLiteConnection) throws -> [Int64] {
        var first: Int64 = 0
        try db.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(Int64(root))]) { first = $0.int64(0) + 1 }
        try db.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.int(first + Int64(count) - 1), .int(Int64(root))])
        return (0..<Int64(count)).map { first + $0 }
    }

    /// Writes a changeset in one transaction. Updates and deletes check the row version they read
    /// (`Z_OPT`): a row changed since is a conflict, resolved by `policy` inside the same transaction
    /// (or, under `.errorMergePolicyType`, thrown as `StoreConflictError` with nothing written).
    func save(_ changes: StoreChangeset, policy: NSMergePolicyType) throws -> StoreSaveResult {
        if isReadOnly { throw readOnlyError("save") }
        var result = StoreSaveResult()
        try wrap {
            try write { db in try db.transaction {
                result = try apply(changes, policy: policy, db)
            } }
        }
        // The transaction committed: the shared row cache follows. Inserted rows are new to every other
        // context, so a large import (bounded as fetches are) is not cached: nobody is about to fault it.
        if changes.inserts.count <= RowCache.largestFetchCached {
            for (insert, pk) in zip(changes.inserts, result.insertedKeys) {
                rowCache.put(root: insert.layout.root.layout.entityID, pk: pk,
                             row: StoreRow(pk: pk, entityID: insert.layout.entityID, version: 1, values: insert.values))
            }
        }
        for (update, outcome) in zip(changes.updates, result.updated) {
            let root = update.layout.root.layout.entityID
            if let outcome {
                rowCache.put(root: root, pk: update.pk,
                             row: StoreRow(pk: update.pk, entityID: update.layout.entityID, version: outcome.version, values: outcome.values))
            } else {
                rowCache.remove(root: root, pk: update.pk)
            }
        }
        for delete in changes.deletes { rowCache.remove(root: delete.layout.root.layout.entityID, pk: delete.pk) }
        return result
    }

    private func apply(_ changes: StoreChangeset, policy: NSMergePolicyType, _ db: SQLiteConnection) throws -> StoreSaveResult {
        var result = StoreSaveResult()
        // Keys for inserts that have none yet.
        var needed: [Int: Int] = [:]
        for i in changes.inserts where i.pk == nil { needed[i.layout.root.layout.entityID, default: 0] += 1 }
        var pools: [Int: [Int64]] = [:]
        for (root, n) in needed { pools[root] = try reserveKeys(root: root, count: n, db).reversed() }
        for insert in changes.inserts {
            let pk = insert.pk ?? pools[insert.layout.root.layout.entityID]!.removeLast()
            result.insertedKeys.append(pk)
            try insertRow(insert.layout, pk: pk, values: insert.values, version: 1, db)
        }
        var conflicts: [StoreConflict] = []
        for (index, update) in changes.updates.enumerated() {
            let changed = update.layout.persistentSlots.filter { update.snapshot[$0] != update.values[$0] }
            if try writeRow(update.layout, pk: update.pk, slots: changed, values: update.values,
                            newVersion: update.version + 1, expected: update.version, db) {
                result.updated.append((update.values, update.version + 1))
                continue
            }
            // Conflict: the row changed or vanished since the object read it.
            let current = try loadRows(root: update.layout.root.layout.entityID, pks: [update.pk], db)[update.pk]
            let conflict = StoreConflict(index: index, isDelete: false, storeValues: current?.values,
                                         storeVersion: current?.version ?? 0, objectVersion: update.version)
            switch policy {
            case .errorMergePolicyType:
                conflicts.append(conflict)
                result.updated.append(nil)
            case .rollbackMergePolicyType:
                result.updated.append(current.map { ($0.values!, $0.version) })
            case .mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType:
                guard let current, let store = current.values else {
                    if policy == .mergeByPropertyStoreTrumpMergePolicyType {
                        result.updated.append(nil)  // deleted in the store: the store wins
                    } else {
                        try insertRow(update.layout, pk: update.pk, values: update.values, version: update.version + 1, db)
                        result.updated.append((update.values, update.version + 1))
                    }
                    continue
                }
                var merged = update.values
                for slot in update.layout.persistentSlots {
                    let mine = update.values[slot] != update.snapshot[slot]
                    let theirs = store[slot] != update.snapshot[slot]
                    switch policy {
                    case .mergeByPropertyStoreTrumpMergePolicyType: merged[slot] = theirs || !mine ? store[slot] : update.values[slot]
                    case .mergeByPropertyObjectTrumpMergePolicyType: merged[slot] = mine ? update.values[slot] : store[slot]
                    default: merged[slot] = update.values[slot]
                    }
                }
                let slots = update.layout.persistentSlots.filter { merged[$0] != store[$0] }
                _ = try writeRow(update.layout, pk: update.pk, slots: slots, values: merged,
                                 newVersion: current.version + 1, expected: current.version, db)
                result.updated.append((merged, current.version + 1))
            }
        }
        for (index, delete) in changes.deletes.enumerated() {
            let table = self.table(for: delete.layout)
            let removed = try db.run("DELETE FROM \(table.name) WHERE Z_PK = ? AND Z_OPT = ?", [.int(delete.pk), .int(delete.version)])
            guard removed == 0 else { continue }
            let current = try loadRows(root: delete.layout.root.layout.entityID, pks: [delete.pk], db)[delete.pk]
            guard let current else { continue }  // already gone
            if policy == .errorMergePolicyType {
                conflicts.append(StoreConflict(index: index, isDelete: true, storeValues: current.values,
                                               storeVersion: current.version, objectVersion: delete.version))
            } else if policy != .rollbackMergePolicyType {
                try db.run("DELETE FROM \(table.name) WHERE Z_PK = ?", [.int(delete.pk)])
            }
        }
        if !conflicts.isEmpty { throw StoreConflictError(conflicts: conflicts) }
        try db.run("UPDATE Z_OCDGENERATION SET Z_VALUE = Z_VALUE + 1", [])
        return result
    }

    private func insertRow(_ layout: EntityLayout, pk: Int64, values: [Value], version: Int64, _ db: SQLiteConnection) throws {
        var arguments: [Value] = [.int(pk), .int(Int64(layout.entityID)), .int(version)]
        arguments.reserveCapacity(3 + layout.persistentSlots.count)
        for slot in layout.persistentSlots { arguments.append(values[slot]) }
        try db.run(insertSQL[layout.entityID]!, arguments)
    }

    /// `INSERT INTO table (Z_PK, Z_ENT, Z_OPT, columns…) VALUES (?, …)` for an entity.
    private static func insertSQL(_ layout: EntityLayout, table: TableInfo) -> String {
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + layout.persistentSlots.map { layout.columns[$0]! }
        return "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (?, ?, ?\(String(repeating: ", ?", count: layout.persistentSlots.count)))"
    }

    /// `UPDATE … SET Z_OPT = new, changed columns WHERE Z_PK = ? AND Z_OPT = expected`; false if no row matched.
    private func writeRow(_ layout: EntityLayout, pk: Int64, slots: [Int], values: [Value], newVersion: Int64,
                          expected: Int64, _ db: SQLiteConnection) throws -> Bool {
        let table = self.table(for: layout)
        let sets = slots.map { ", \(layout.columns[$0]!) = ?" }.joined()
        let sql = "UPDATE \(table.name) SET Z_OPT = ?\(sets) WHERE Z_PK = ? AND Z_OPT = ?"
        return try db.run(sql, [.int(newVersion)] + slots.map { values[$0] } + [.int(pk), .int(expected)]) == 1
    }

    /// Rows by key on a given connection (inside a write transaction).
    private func loadRows(root: Int, pks: [Int64], _ db: SQLiteConnection) throws -> [Int64: StoreRow] {
        guard let table = tables[root], !pks.isEmpty else { return [:] }
        var result: [Int64: StoreRow] = [:]
        let sql = "SELECT \(table.selectList) FROM \(table.name) t0 WHERE t0.Z_PK IN (\(Array(repeating: "?", count: pks.count).joined(separator: ", ")))"
        try db.query(sql, pks.map { .int($0) }) { row in
            let entityID = Int(row.int64(1))
            result[row.int64(0)] = StoreRow(pk: row.int64(0), entityID: entityID, version: row.int64(2),
                                            values: values(of: row, entityID: entityID, table: table))
        }
        return result
    }

    /// Turns SQLite failures into Core Data errors carrying the SQL.
    func wrap(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as SQLiteError {
            throw error.coreDataError
        }
    }
}

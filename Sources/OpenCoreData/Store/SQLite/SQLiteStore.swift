import CSQLite
import Foundation
import Logging

/// One row read by a fetch: its key, entity number and (when asked) its values by storage slot.
struct StoreRow {
    let pk: Int64
    let entityID: Int
    let values: [Value]?
}

/// What a save writes, in one transaction.
struct StoreChangeset {
    struct Insert { let layout: EntityLayout; let pk: Int64?; let values: [Value] }
    struct Update { let layout: EntityLayout; let pk: Int64; let slots: [Int]; let values: [Value] }
    struct Delete { let layout: EntityLayout; let pk: Int64 }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
}

/// The SQLite store: one database file (WAL journal) or an in-memory database, one table per entity
/// hierarchy, `Z_PRIMARYKEY` for key allocation and `Z_METADATA` for the store's identity and model hash.
/// Not thread-safe by itself: the coordinator serializes access.
final class SQLiteStore {
    let connection: SQLiteConnection
    let model: NSManagedObjectModel
    let identifier: String
    let tables: [Int: TableInfo]
    let entitiesByID: [Int: NSEntityDescription]

    init(url: URL?, model: NSManagedObjectModel, logger: Logger?) throws {
        self.model = model
        let path: String
        if let url {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            path = url.path
        } else {
            path = ":memory:"
        }
        do {
            connection = try SQLiteConnection(path: path, logger: logger)
        } catch let error as SQLiteError {
            throw CoreDataError(NSPersistentStoreOperationError, error.description)
        }
        var entitiesByID: [Int: NSEntityDescription] = [:]
        for e in model.entities { entitiesByID[e.layout.entityID] = e }
        self.entitiesByID = entitiesByID
        var tables: [Int: TableInfo] = [:]
        for root in model.entities where root.superentity == nil {
            tables[root.layout.entityID] = TableInfo(root: root, entities: model.entities)
        }
        self.tables = tables
        do {
            if url != nil {
                try connection.execute("PRAGMA journal_mode = WAL")
                try connection.execute("PRAGMA synchronous = NORMAL")
            }
            identifier = try Self.openSchema(connection, model: model, tables: tables)
        } catch let error as SQLiteError {
            throw CoreDataError(NSPersistentStoreOperationError, "cannot open the store at \(path): \(error)")
        }
    }

    /// Creates the schema of a new store, or checks that an existing one was made with this model.
    private static func openSchema(_ db: SQLiteConnection, model: NSManagedObjectModel, tables: [Int: TableInfo]) throws -> String {
        var exists = false
        try db.query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_METADATA'") { exists = $0.int64(0) > 0 }
        if exists {
            var metadata: StoreMetadata?
            try db.query("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") { row in
                if case .data(let d) = row.value(0, as: .binaryDataAttributeType) {
                    metadata = try? JSONDecoder().decode(StoreMetadata.self, from: d)
                }
            }
            guard let metadata else {
                throw CoreDataError(NSPersistentStoreInvalidTypeError, "The store's metadata is missing or unreadable: \(db.path)")
            }
            guard metadata.versionHash == model.versionHash else {
                throw CoreDataError(NSPersistentStoreIncompatibleVersionHashError,
                                    "The model used to open the store is incompatible with the one used to create the store (store model hash \(metadata.versionHash), this model \(model.versionHash)).",
                                    userInfo: ["NSStoreModelVersionHash": metadata.versionHash])
            }
            return metadata.storeUUID
        }
        let metadata = StoreMetadata(storeUUID: UUID().uuidString, storeType: NSSQLiteStoreType, versionHash: model.versionHash)
        try db.transaction {
            try db.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            try db.execute("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
            for table in tables.values.sorted(by: { $0.name < $1.name }) {
                try db.execute(table.createSQL)
                try db.execute(table.indexSQL)
            }
            for e in model.entities {
                try db.run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                           [.int(Int64(e.layout.entityID)), .string(e.name ?? ""), .int(Int64(e.superentity?.layout.entityID ?? 0))])
            }
            let plist = try JSONEncoder().encode(metadata)
            try db.run("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", [.string(metadata.storeUUID), .data(plist)])
        }
        return metadata.storeUUID
    }

    func table(for layout: EntityLayout) -> TableInfo { tables[layout.root.layout.entityID]! }

    // MARK: - Fetching

    /// The `SELECT` for a plan: `columns` (or `table.selectList`), `WHERE`, `ORDER BY` and, if asked, `LIMIT`/`OFFSET`.
    func selectSQL(_ plan: FetchPlan, columns: String? = nil, limited: Bool, distinct: Bool = false, groupBy: String? = nil) throws -> (String, [Value]) {
        let table = self.table(for: plan.layout)
        var sql = "SELECT \(distinct ? "DISTINCT " : "")\(columns ?? table.selectList) FROM \(table.name) t0"
        var conditions: [String] = []
        if let ids = plan.entityIDs {
            conditions.append(ids.count == 1 ? "t0.Z_ENT = \(ids[0])" : "t0.Z_ENT IN (\(ids.map(String.init).joined(separator: ", ")))")
        }
        var translator = PredicateSQL(layout: plan.layout, entityName: plan.entity.name ?? "")
        if let predicate = plan.predicate {
            let condition = try translator.condition(predicate)
            if condition != "1" { conditions.append(condition) }
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if let groupBy { sql += " GROUP BY " + groupBy }
        var order = plan.sorts.map { s -> String in
            var term = "t0.\(s.column)"
            if s.isString, let collation = SQLiteFunctions.collationName(s.collation) { term += " COLLATE \(collation)" }
            return s.ascending ? term : term + " DESC"
        }
        if columns == nil && groupBy == nil && !distinct { order.append("t0.Z_PK") }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if limited, plan.limit > 0 || plan.offset > 0 {
            sql += " LIMIT \(plan.limit > 0 ? plan.limit : -1)"
            if plan.offset > 0 { sql += " OFFSET \(plan.offset)" }
        }
        return (sql, translator.arguments)
    }

    func fetchRows(_ plan: FetchPlan, withValues: Bool, limited: Bool) throws -> [StoreRow] {
        let table = self.table(for: plan.layout)
        let (sql, arguments) = try selectSQL(plan, columns: withValues ? nil : "t0.Z_PK, t0.Z_ENT", limited: limited)
        var rows: [StoreRow] = []
        try wrap {
            try connection.query(sql, arguments) { row in
                let entityID = Int(row.int64(1))
                rows.append(StoreRow(pk: row.int64(0), entityID: entityID,
                                     values: withValues ? values(of: row, entityID: entityID, table: table) : nil))
            }
        }
        return rows
    }

    private func values(of row: SQLiteStatement, entityID: Int, table: TableInfo) -> [Value] {
        guard let positions = table.slotPositions[entityID], let entity = entitiesByID[entityID] else { return [] }
        let attributes = entity.layout.attributes
        return positions.indices.map { slot in
            guard let column = positions[slot] else {
                let a = attributes[slot]
                return a.defaultValue.flatMap { a.attributeType.coerce(Value(any: $0)) } ?? .null
            }
            return row.value(column, as: attributes[slot].attributeType)
        }
    }

    func count(_ plan: FetchPlan) throws -> Int {
        let (inner, arguments) = try selectSQL(plan, columns: "t0.Z_PK", limited: true)
        let sql = plan.limit > 0 || plan.offset > 0 ? "SELECT COUNT(*) FROM (\(inner))"
            : inner.replacingOccurrences(of: "SELECT t0.Z_PK FROM", with: "SELECT COUNT(*) FROM")
                .components(separatedBy: " ORDER BY ").first!
        var count = 0
        try wrap { try connection.query(sql, arguments) { count = Int($0.int64(0)) } }
        return count
    }

    /// Values of rows by primary key (for faults), in chunks of 500 keys.
    func loadRows(root: Int, pks: [Int64]) throws -> [Int64: StoreRow] {
        guard let table = tables[root] else { return [:] }
        var result: [Int64: StoreRow] = [:]
        for start in stride(from: 0, to: pks.count, by: 500) {
            let chunk = Array(pks[start..<min(start + 500, pks.count)])
            let sql = "SELECT \(table.selectList) FROM \(table.name) t0 WHERE t0.Z_PK IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))"
            try wrap {
                try connection.query(sql, chunk.map { .int($0) }) { row in
                    let entityID = Int(row.int64(1))
                    result[row.int64(0)] = StoreRow(pk: row.int64(0), entityID: entityID, values: values(of: row, entityID: entityID, table: table))
                }
            }
        }
        return result
    }

    // MARK: - Saving

    /// Reserves `count` primary keys for a hierarchy (Core Data's `Z_PRIMARYKEY.Z_MAX`).
    func allocatePrimaryKeys(root: Int, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        var first: Int64 = 0
        try wrap {
            try connection.transaction {
                try connection.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(Int64(root))]) { first = $0.int64(0) + 1 }
                try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.int(first + Int64(count) - 1), .int(Int64(root))])
            }
        }
        return (0..<Int64(count)).map { first + $0 }
    }

    /// Writes a changeset in one transaction; returns the keys given to inserted rows, in order.
    /// If anything fails, nothing is written.
    func save(_ changes: StoreChangeset) throws -> [Int64] {
        var assigned: [Int64] = []
        try wrap {
            try connection.transaction {
                // Keys for inserts that have none yet.
                var needed: [Int: Int] = [:]
                for i in changes.inserts where i.pk == nil { needed[i.layout.root.layout.entityID, default: 0] += 1 }
                var pools: [Int: [Int64]] = [:]
                for (root, n) in needed {
                    var first: Int64 = 0
                    try connection.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(Int64(root))]) { first = $0.int64(0) + 1 }
                    try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.int(first + Int64(n) - 1), .int(Int64(root))])
                    pools[root] = (0..<Int64(n)).map { first + $0 }.reversed()
                }
                for insert in changes.inserts {
                    let root = insert.layout.root.layout.entityID
                    let pk = insert.pk ?? pools[root]!.removeLast()
                    assigned.append(pk)
                    let table = self.table(for: insert.layout)
                    let slots = insert.layout.persistentSlots
                    let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + slots.map { insert.layout.columns[$0]! }
                    let sql = "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (?, ?, 1\(String(repeating: ", ?", count: slots.count)))"
                    try connection.run(sql, [.int(pk), .int(Int64(insert.layout.entityID))] + slots.map { insert.values[$0] })
                }
                for update in changes.updates {
                    let table = self.table(for: update.layout)
                    let sets = update.slots.map { "\(update.layout.columns[$0]!) = ?" }
                    let sql = "UPDATE \(table.name) SET Z_OPT = Z_OPT + 1\(sets.map { ", " + $0 }.joined()) WHERE Z_PK = ?"
                    let changed = try connection.run(sql, update.slots.map { update.values[$0] } + [.int(update.pk)])
                    guard changed == 1 else {
                        throw CoreDataError(NSManagedObjectMergeError,
                                            "Could not save: the \(update.layout.root.name ?? "?") row \(update.pk) no longer exists in the store.")
                    }
                }
                for delete in changes.deletes {
                    let table = self.table(for: delete.layout)
                    try connection.run("DELETE FROM \(table.name) WHERE Z_PK = ?", [.int(delete.pk)])
                }
            }
        }
        return assigned
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

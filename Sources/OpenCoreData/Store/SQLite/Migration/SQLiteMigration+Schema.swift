import CSQLite
import Foundation
import OpenCoreDataPredicates

extension SQLiteMigration {
    /// A required attribute or to-one of the destination that existing rows would leave `NULL` (added
    /// without a default value, or made required without one) fails the migration before anything is
    /// written: `NSMigrationError` with `NSValidationMissingMandatoryPropertyError` as its underlying error,
    /// as Core Data's migration fails validation.
    func checkRequiredValues(_ db: SQLiteConnection) throws {
        for d in destination.entities.sorted(by: { $0.layout.entityID < $1.layout.entityID }) {
            guard let s = sourceEntity[ObjectIdentifier(d)] else { continue }
            let table = sourceTable(of: s).name
            let values = rowValues(for: d, names: [:])
            for slot in d.layout.columnSlots {
                let p = d.layout.properties[slot]
                guard !p.isOptional, !p.isTransient, let column = Self.keyColumn(d.layout, slot) else { continue }
                var condition: String
                switch values[column] ?? .null {
                case .null: condition = ""
                case .column(let c):
                    guard let (s, sourceSlot) = sourceProperty(of: p, in: d), s.layout.properties[sourceSlot].isOptional else { continue }
                    condition = " AND \(c) IS NULL"
                default: continue
                }
                var missing: Int64 = 0
                try db.query("SELECT count(*) FROM \(table) WHERE Z_ENT = ?\(condition)", [.int(Int64(s.layout.entityID))]) { missing = $0.int64(0) }
                guard missing == 0 else {
                    let underlying = CoreDataError(NSValidationMissingMandatoryPropertyError, "\(p.name) is a required value.",
                                                   userInfo: [NSValidationKeyErrorKey: p.name])
                    throw failure(NSMigrationError,
                                  "\(missing) \(s.name ?? "?") row(s) would have no value for the required \(p is NSRelationshipDescription ? "relationship" : "attribute") \(d.name ?? "?").\(p.name) (it has no default value)",
                                  [NSUnderlyingErrorKey: underlying, "entity": d.name ?? "", "property": p.name])
                }
            }
        }
    }

    /// An attribute's column, or a to-one's key column.
    private static func keyColumn(_ layout: EntityLayout, _ slot: Int) -> String? {
        if case .toOne(let r) = layout.kinds[slot], case .foreignKey(let column, _) = r.storage { return column }
        if case .attribute = layout.kinds[slot] { return layout.columns[slot] }
        return nil
    }

    /// The destination's indexes (the store's own, fetch indexes, uniqueness constraints), made where
    /// missing; indexes of the entity tables that the destination does not have are dropped. Rows that
    /// break a uniqueness constraint fail with `NSMigrationConstraintViolationError`.
    func makeIndexes(_ db: SQLiteConnection) throws {
        var statements = tables.values.sorted { $0.name < $1.name }.flatMap(\.indexSQL)
        statements += ModelIndexes.sql(destination.entities.filter { tables[$0.layout.rootEntityID] != nil }) + ModelIndexes.uniqueSQL(destination, within: tables).map(\.sql)
        statements += TableInfo.joinTables(of: destination, within: tables).flatMap { $0.createSQL.dropFirst() }
        let wanted = Dictionary(statements.map { (Self.indexName($0), Self.plain($0)) }, uniquingKeysWith: { a, _ in a })
        let entityTables = Set(tables.values.map(\.name) + TableInfo.joinTables(of: destination, within: tables).map(\.name))
        var present: [String: (table: String, sql: String)] = [:]
        try db.query("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = ? AND sql IS NOT NULL", [.string("index")]) { row in
            if case .string(let name) = row.value(0, as: .stringAttributeType), case .string(let table) = row.value(1, as: .stringAttributeType),
               case .string(let sql) = row.value(2, as: .stringAttributeType) {
                present[name] = (table, Self.plain(sql))
            }
        }
        for (name, index) in present.sorted(by: { $0.key < $1.key }) where entityTables.contains(index.table) && wanted[name] != index.sql {
            try db.execute("DROP INDEX \(name)")
            present[name] = nil
        }
        for statement in statements where present[Self.indexName(statement)] == nil {
            do {
                try db.execute(Self.plain(statement))
                present[Self.indexName(statement)] = (Self.indexTable(statement), Self.plain(statement))
            } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
                throw failure(NSMigrationConstraintViolationError, "the migrated rows break a uniqueness constraint (\(statement)): \(error.message)",
                              [NSUnderlyingErrorKey: error])
            }
        }
    }

    /// A `CREATE INDEX` statement without `IF NOT EXISTS`, as `sqlite_master` keeps it.
    static func plain(_ statement: String) -> String { statement.replacingOccurrences(of: " IF NOT EXISTS ", with: " ") }

    /// The name in `CREATE [UNIQUE] INDEX [IF NOT EXISTS] <name> ON <table> …`.
    static func indexName(_ statement: String) -> String {
        let words = statement.split(separator: " ").map(String.init)
        guard let on = words.firstIndex(of: "ON"), on > 0 else { return statement }
        return words[on - 1]
    }

    static func indexTable(_ statement: String) -> String {
        let words = statement.split(separator: " ").map(String.init)
        guard let on = words.firstIndex(of: "ON"), on + 1 < words.count else { return "" }
        return words[on + 1]
    }

    /// `Z_PRIMARYKEY` numbered as the destination numbers entities. Each hierarchy's root keeps the
    /// largest `Z_MAX` its rows had (never below its table's largest key), subentities 0, as Core Data
    /// writes them. A renamed entity keeps the `Z_NAME` the store had when that is its renaming
    /// identifier (what Apple's migrated fixture store shows).
    func writePrimaryKeys(_ db: SQLiteConnection) throws {
        var old: [Int: (name: String, max: Int64)] = [:]
        try db.query("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY") { row in
            let name: String = if case .string(let s) = row.value(1, as: .stringAttributeType) { s } else { "" }
            old[Int(row.int64(0))] = (name, row.int64(2))
        }
        try db.execute("DELETE FROM Z_PRIMARYKEY")
        for d in destination.entities.sorted(by: { $0.layout.entityID < $1.layout.entityID }) {
            let s = sourceEntity[ObjectIdentifier(d)]
            let oldName = s.flatMap { old[$0.layout.entityID]?.name }
            let name = oldName.flatMap { $0 != d.name && $0 == d.renamingIdentifier ? $0 : nil } ?? d.name ?? ""
            var max: Int64 = 0
            if d.superentity == nil {
                for member in destination.entities where member.layout.rootEntityID == d.layout.entityID {
                    if let s = sourceEntity[ObjectIdentifier(member)] { max = Swift.max(max, old[s.layout.rootEntityID]?.max ?? 0) }
                }
                try db.query("SELECT ifnull(max(Z_PK), 0) FROM \(d.layout.tableName)") { max = Swift.max(max, $0.int64(0)) }
            }
            _ = try db.run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                           [.int(Int64(d.layout.entityID)), .string(name), .int(Int64(d.superentity?.layout.entityID ?? 0)), .int(max)])
        }
    }
}

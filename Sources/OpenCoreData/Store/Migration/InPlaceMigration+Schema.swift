import Foundation
import OpenCoreDataPredicates

extension InPlaceMigration {
    /// A required attribute or to-one of the destination that existing rows would leave `NULL` (added
    /// without a default value, or made required without one) fails the migration before anything is
    /// written: `NSMigrationError` with `NSValidationMissingMandatoryPropertyError` as its underlying error,
    /// as Core Data's migration fails validation.
    func checkRequiredValues(_ db: any MigrationDatabase) throws {
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
                let missing = try db.integer("SELECT count(*) FROM \(table) WHERE Z_ENT = ?\(condition)", [.int(Int64(s.layout.entityID))])
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
    func makeIndexes(_ db: any MigrationDatabase) throws {
        var changes = tables.values.sorted { $0.name < $1.name }.flatMap(\.indexes)
        changes += ModelIndexes.indexes(destination.entities.filter { tables[$0.layout.rootEntityID] != nil }).map { .createIndex($0) }
        changes += ModelIndexes.unique(destination, within: tables).map { .createIndex($0.index) }
        changes += TableInfo.joinTables(of: destination, within: tables).map(\.index)
        let indexes = changes.compactMap { change -> SQLCreateIndex? in
            guard case .createIndex(var index) = change else { return nil }
            index.ifNotExists = false  // SQLite keeps the statement so: compared as text
            return index
        }
        do {
            try db.replaceIndexes(of: Set(tables.values.map(\.name) + TableInfo.joinTables(of: destination, within: tables).map(\.name)), with: indexes)
        } catch let violation as MigrationUniqueViolation {
            throw failure(NSMigrationConstraintViolationError,
                          "the migrated rows break a uniqueness constraint (\(violation.index)): \(violation.underlying)",
                          [NSUnderlyingErrorKey: violation.underlying])
        }
    }

    /// `Z_PRIMARYKEY` numbered as the destination numbers entities. Each hierarchy's root keeps the
    /// largest `Z_MAX` its rows had (never below its table's largest key), subentities 0, as Core Data
    /// writes them; persistent history's rows stay as they were. A renamed entity keeps the `Z_NAME` the store had when that is its renaming
    /// identifier (what Apple's migrated fixture store shows).
    func writePrimaryKeys(_ db: any MigrationDatabase) throws {
        let old = try db.primaryKeyRows()
        try db.run(CoreDataTables.clearPrimaryKeys)
        for d in destination.entities.sorted(by: { $0.layout.entityID < $1.layout.entityID }) {
            let s = sourceEntity[ObjectIdentifier(d)]
            let oldName = s.flatMap { old[$0.layout.entityID]?.name }
            let name = oldName.flatMap { $0 != d.name && $0 == d.renamingIdentifier ? $0 : nil } ?? d.name ?? ""
            var max: Int64 = 0
            if d.superentity == nil {
                for member in destination.entities where member.layout.rootEntityID == d.layout.entityID {
                    if let s = sourceEntity[ObjectIdentifier(member)] { max = Swift.max(max, old[s.layout.rootEntityID]?.max ?? 0) }
                }
                max = Swift.max(max, try db.integer("SELECT coalesce(max(Z_PK), 0) FROM \(d.layout.tableName)", []))
            }
            try db.run(CoreDataTables.primaryKeyRow(entity: d.layout.entityID, name: name, superentity: d.superentity?.layout.entityID ?? 0, max: max))
        }
        // Persistent history's rows keep their numbers: its next transaction must not reuse a key.
        for entity in [HistoryTables.changeEntity, HistoryTables.transactionEntity, HistoryTables.stringEntity] {
            guard let row = old[entity] else { continue }
            try db.run(CoreDataTables.primaryKeyRow(entity: entity, name: row.name, superentity: 0, max: row.max))
        }
    }
}

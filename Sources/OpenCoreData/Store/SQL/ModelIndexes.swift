import Foundation

/// The SQL indexes a model asks for, beside the store's own (`Z_ENT`, foreign keys):
///
/// - each fetch index (`NSFetchIndexDescription`, a model file's `fetchIndex`) of property elements
///   becomes `CREATE INDEX Z_<Entity>_<name> ON <table> (<column> COLLATE BINARY ASC|DESC, …)`, as Core Data writes
///   them; an element of a to-one relationship indexes its key column. A partial index predicate becomes
///   the index's `WHERE` clause (``PartialIndexWhere``). `compoundIndexes` come here as the fetch indexes
///   they make. Indexes with an expression element, an R-tree element, a partial index predicate SQLite
///   cannot hold, or a name that is no stored property of the entity are not made (logged);
/// - each attribute or to-one with `isIndexed` (deprecated in Core Data) becomes
///   `CREATE INDEX <table>_<column>_INDEX ON <table> (<column>)`, the naming of the foreign key indexes.
///
/// They are values (``SQLCreateIndex``) any SQL store prints; they are made with `IF NOT EXISTS` whenever a writable store opens, so a store made before a model
/// gained an index gets it too.
enum ModelIndexes {
    static func indexes(_ entities: [NSEntityDescription]) -> [SQLCreateIndex] {
        var statements: [SQLCreateIndex] = []
        var seen = Set<SQLCreateIndex>()
        func add(_ s: SQLCreateIndex) { if seen.insert(s).inserted { statements.append(s) } }
        for entity in entities {
            let layout = entity.layout!
            let table = layout.tableName
            for index in entity.indexes {
                var columns: [SQLCreateIndex.Column] = []
                var usable = !index.elements.isEmpty
                for element in index.elements {
                    guard usable, element.collationType == .binary, let name = element.propertyName,
                          let slot = layout.slotByName[name], let column = layout.columns[slot],
                          !(element.property is NSExpressionDescription) else { usable = false; break }
                    columns.append(.init(column, ascending: element.isAscending))
                }
                guard usable else {
                    storeLogger.warning("CoreData: warning: the fetch index \(entity.name ?? "?").\(index.name) is not created: only elements naming stored properties of the entity, of binary type, are supported")
                    continue
                }
                var scope: SQLExpression?
                if let predicate = index.partialIndexPredicate {
                    do { scope = try PartialIndexWhere.condition(predicate, layout) } catch {
                        storeLogger.warning("CoreData: warning: the fetch index \(entity.name ?? "?").\(index.name) is not created: \(error)")
                        continue
                    }
                }
                add(SQLCreateIndex(name: "Z_\(entity.name ?? "")_\(index.name)", table: table, columns: columns, ifNotExists: true, condition: scope))
            }
            // (The layout's properties: a composite's indexed elements are among them, under their key paths.)
            for property in layout.properties where property.isIndexed && !property.isTransient {
                guard let slot = layout.slotByName[property.name], let column = layout.columns[slot] else { continue }
                add(SQLCreateIndex(name: "\(table)_\(column)_INDEX", table: table, columns: [.init(column)], ifNotExists: true))
            }
        }
        return statements
    }

    /// The unique index of each uniqueness constraint (see ``UniquenessConstraint``):
    /// `CREATE UNIQUE INDEX IF NOT EXISTS Z_<Entity>_UNIQUE_<name>… ON <table> (<column> COLLATE BINARY ASC, …)`, with
    /// `WHERE Z_ENT IN (…)` (the entity and its subentities) when the declaring entity shares its table
    /// with entities the constraint does not cover. A to-one names its key column.
    static func unique(_ model: NSManagedObjectModel, within tables: [Int: TableInfo]) -> [(constraint: UniquenessConstraint, index: SQLCreateIndex)] {
        UniquenessConstraint.all(model).filter { tables[$0.entity.layout.rootEntityID] != nil }.map { c in
            let layout = c.entity.layout!
            let columns = c.slots.map { slot -> SQLCreateIndex.Column in
                if case .toOne(let r) = layout.kinds[slot], case .foreignKey(let column, _) = r.storage { return .init(column, ascending: true) }
                return .init(layout.columns[slot]!, ascending: true)
            }
            let rootIDs = layout.root.layout.entityIDs
            let scope: SQLExpression? = layout.entityIDs == rootIDs ? nil : .inList(.name("Z_ENT"), layout.entityIDs.map { .integer($0) })
            return (c, SQLCreateIndex(name: c.indexName, table: layout.tableName, columns: columns, unique: true, ifNotExists: true, condition: scope))
        }
    }
}

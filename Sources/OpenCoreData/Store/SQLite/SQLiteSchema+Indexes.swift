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
/// They are made with `IF NOT EXISTS` whenever a writable store opens, so a store made before a model
/// gained an index gets it too.
enum ModelIndexes {
    static func sql(_ entities: [NSEntityDescription]) -> [String] {
        var statements: [String] = []
        var seen = Set<String>()
        func add(_ s: String) { if seen.insert(s).inserted { statements.append(s) } }
        for entity in entities {
            let layout = entity.layout!
            let table = layout.tableName
            for index in entity.indexes {
                var columns: [String] = []
                var usable = !index.elements.isEmpty
                for element in index.elements {
                    guard usable, element.collationType == .binary, let name = element.propertyName,
                          let slot = layout.slotByName[name], let column = layout.columns[slot],
                          !(element.property is NSExpressionDescription) else { usable = false; break }
                    columns.append(column + (element.isAscending ? " COLLATE BINARY ASC" : " COLLATE BINARY DESC"))
                }
                guard usable else {
                    storeLogger.warning("CoreData: warning: the fetch index \(entity.name ?? "?").\(index.name) is not created: only elements naming stored properties of the entity, of binary type, are supported")
                    continue
                }
                var scope = ""
                if let predicate = index.partialIndexPredicate {
                    do { scope = " WHERE " + (try PartialIndexWhere.sql(predicate, layout)) } catch {
                        storeLogger.warning("CoreData: warning: the fetch index \(entity.name ?? "?").\(index.name) is not created: \(error)")
                        continue
                    }
                }
                add("CREATE INDEX IF NOT EXISTS Z_\(entity.name ?? "")_\(index.name) ON \(table) (\(columns.joined(separator: ", ")))\(scope)")
            }
            // (The layout's properties: a composite's indexed elements are among them, under their key paths.)
            for property in layout.properties where property.isIndexed && !property.isTransient {
                guard let slot = layout.slotByName[property.name], let column = layout.columns[slot] else { continue }
                add("CREATE INDEX IF NOT EXISTS \(table)_\(column)_INDEX ON \(table) (\(column))")
            }
        }
        return statements
    }

    /// The unique index of each uniqueness constraint (see ``UniquenessConstraint``):
    /// `CREATE UNIQUE INDEX IF NOT EXISTS Z_<Entity>_UNIQUE_<name>… ON <table> (<column> COLLATE BINARY ASC, …)`, with
    /// `WHERE Z_ENT IN (…)` (the entity and its subentities) when the declaring entity shares its table
    /// with entities the constraint does not cover. A to-one names its key column.
    static func uniqueSQL(_ model: NSManagedObjectModel, within tables: [Int: TableInfo]) -> [(constraint: UniquenessConstraint, sql: String)] {
        UniquenessConstraint.all(model).filter { tables[$0.entity.layout.rootEntityID] != nil }.map { c in
            let layout = c.entity.layout!
            let columns = c.slots.map { slot -> String in
                if case .toOne(let r) = layout.kinds[slot], case .foreignKey(let column, _) = r.storage { return column }
                return layout.columns[slot]!
            }.map { $0 + " COLLATE BINARY ASC" }
            let rootIDs = layout.root.layout.entityIDs
            let scope = layout.entityIDs == rootIDs ? "" : " WHERE Z_ENT IN (\(layout.entityIDs.map(String.init).joined(separator: ", ")))"
            return (c, "CREATE UNIQUE INDEX IF NOT EXISTS \(c.indexName) ON \(layout.tableName) (\(columns.joined(separator: ", ")))\(scope)")
        }
    }
}

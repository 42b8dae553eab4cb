import Foundation

/// The table of one entity hierarchy (single-table inheritance, as Core Data does): `Z_PK`, `Z_ENT`,
/// `Z_OPT`, then one column per persistent attribute and to-one relationship of every entity in the
/// hierarchy, the entity columns of to-ones whose destination has subentities, and the order columns
/// (`Z_FOK_…`) of ordered to-many relationships whose rows live here.
struct TableInfo {
    let name: String
    let rootEntityID: Int
    /// Columns in table order (after `Z_PK, Z_ENT, Z_OPT`), with the type that reads them back.
    let columns: [(name: String, type: NSAttributeType)]
    /// Columns to index: foreign keys.
    let indexedColumns: [String]
    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME, …`
    let selectList: String
    /// The same columns, for a ``SQLSelect``.
    let selectColumns: [SQLExpression]
    /// Per entity: for each storage slot, the position of its column in `selectList` (nil: transient or
    /// to-many).
    let slotPositions: [Int: [Int32?]]
    /// Per entity: for each to-one slot with an entity column, that column's position.
    let entityColumnPositions: [Int: [Int: Int32]]

    init(root: NSEntityDescription, entities: [NSEntityDescription]) {
        let layout = root.layout!
        name = layout.tableName
        rootEntityID = layout.entityID
        var columns: [(String, NSAttributeType)] = []
        var indexed: [String] = []
        var seen = Set<String>()
        func add(_ column: String, _ type: NSAttributeType) -> Bool {
            guard seen.insert(column).inserted else { return false }
            columns.append((column, type))
            return true
        }
        let members = entities.filter { $0.layout.root === root }.sorted { $0.layout.entityID < $1.layout.entityID }
        for e in members {
            for slot in e.layout.columnSlots {
                let column = e.layout.columns[slot]!
                switch e.layout.kinds[slot] {
                case .attribute(let type): _ = add(column, type)
                case .toOne(let r):
                    if add(column, .integer64AttributeType) { indexed.append(column) }
                    if case .foreignKey(_, let entityColumn?) = r.storage { _ = add(entityColumn, .integer64AttributeType) }
                case .toMany: break
                }
            }
        }
        // Order columns of ordered to-manys whose destination rows are in this table.
        for e in entities {
            for slot in e.layout.relationshipSlots where e.layout.properties[slot].entity === e {
                guard case .toMany(let r) = e.layout.kinds[slot], case .inverseForeignKey(_, let order?) = r.storage,
                      r.destination.layout.root === root else { continue }
                _ = add(order, .integer64AttributeType)
            }
        }
        self.columns = columns
        indexedColumns = indexed
        selectColumns = [FetchSelection.key, FetchSelection.entity, FetchSelection.version]
            + columns.map { .column(alias: SQLGenerationContext.rootAlias, name: $0.0) }
        selectList = (["t0.Z_PK", "t0.Z_ENT", "t0.Z_OPT"] + columns.map { "t0.\($0.0)" }).joined(separator: ", ")
        var positions: [Int: [Int32?]] = [:]
        var entityPositions: [Int: [Int: Int32]] = [:]
        let index = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.0, Int32($0 + 3)) })
        for e in members {
            positions[e.layout.entityID] = e.layout.columns.map { $0.flatMap { index[$0] } }
            var bySlot: [Int: Int32] = [:]
            for slot in e.layout.columnSlots {
                if case .toOne(let r) = e.layout.kinds[slot], case .foreignKey(_, let entityColumn?) = r.storage { bySlot[slot] = index[entityColumn] }
            }
            entityPositions[e.layout.entityID] = bySlot
        }
        slotPositions = positions
        entityColumnPositions = entityPositions
    }

    var createSQL: String {
        "CREATE TABLE \(name) (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER"
            + columns.map { ", \($0.name)" + ($0.type.sqlType.isEmpty ? "" : " \($0.type.sqlType)") }.joined() + ")"
    }

    /// The `Z_ENT` index, then one per foreign key column (`Z<TABLE>_<COLUMN>_INDEX`, Core Data's naming).
    var indexSQL: [String] {
        ["CREATE INDEX IF NOT EXISTS \(name)_Z_ENT_INDEX ON \(name) (Z_ENT)"]
            + indexedColumns.map { "CREATE INDEX IF NOT EXISTS \(name)_\($0)_INDEX ON \(name) (\($0))" }
    }

    /// The join tables of a model's many-to-many relationships (and to-manys without an inverse), once each.
    static func joinTables(of model: NSManagedObjectModel) -> [JoinTable] {
        var tables: [String: JoinTable] = [:]
        for e in model.entities {
            for slot in e.layout.relationshipSlots {
                guard case .toMany(let r) = e.layout.kinds[slot], case .joinTable(let t) = r.storage, t.isOwner else { continue }
                tables[t.name] = t
            }
        }
        return tables.values.sorted { $0.name < $1.name }
    }
}

extension JoinTable {
    /// `CREATE TABLE Z_1ZOOS (Z_1ANIMALS INTEGER, Z_3ZOOS INTEGER[, Z_FOK_3ZOOS INTEGER], PRIMARY KEY (…))`
    /// and an index on the second key column (the primary key indexes the first).
    var createSQL: [String] {
        ["CREATE TABLE \(name) (\(sourceColumn) INTEGER, \(destinationColumn) INTEGER"
            + (orderColumn.map { ", \($0) INTEGER" } ?? "") + ", PRIMARY KEY (\(sourceColumn), \(destinationColumn)))",
         "CREATE INDEX IF NOT EXISTS \(name)_\(destinationColumn)_INDEX ON \(name) (\(destinationColumn), \(sourceColumn))"]
    }
}

/// The store's metadata row (`Z_METADATA`): store UUID, store type and the model's version hash.
struct StoreMetadata: Codable {
    var storeUUID: String
    var storeType: String
    var versionHash: String

    /// The metadata as ``NSPersistentStore/metadata`` gives it.
    var dictionary: [String: Any] {
        [NSStoreUUIDKey: storeUUID, NSStoreTypeKey: storeType, "NSStoreModelVersionHash": versionHash]
    }

    /// The `Z_PLIST` of a store's metadata row, if it has one.
    static func plist(_ db: SQLiteConnection) throws -> Data? {
        var plist: Data?
        try db.query("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = ?", [.int(1)]) { row in
            if case .data(let d) = row.value(0, as: .binaryDataAttributeType) { plist = d }
        }
        return plist
    }
}

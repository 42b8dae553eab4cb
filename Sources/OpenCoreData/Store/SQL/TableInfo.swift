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
    /// Whether more than one entity keeps rows here (Core Data then indexes `Z_ENT`).
    let hasSubentities: Bool
    /// Where a row read by ``selectList`` holds its `Z_ENT`: 1 when several entities keep rows here, else
    /// `nil`: every row is of ``rootEntityID``, and the column is not read (Core Data selects a constant in
    /// its place).
    let entityColumn: Int32?
    /// Where such a row holds its `Z_OPT` (after `Z_PK`, and `Z_ENT` when read); the table's own columns follow.
    let versionColumn: Int32
    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME, …` (without `t0.Z_ENT` for one entity's table)
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
        let members = entities.filter { $0.layout.root === root }.sorted { $0.layout.entityID < $1.layout.entityID }
        let columns = Self.coreDataColumnOrder(members, entities: entities)
        hasSubentities = members.count > 1
        var indexed: [String] = []
        for e in members {
            for slot in e.layout.columnSlots where e.layout.properties[slot].entity === e {
                if case .toOne = e.layout.kinds[slot], let column = e.layout.columns[slot] { indexed.append(column) }
            }
        }
        self.columns = columns
        indexedColumns = indexed
        entityColumn = hasSubentities ? 1 : nil
        versionColumn = hasSubentities ? 2 : 1
        selectColumns = Self.leadColumns(hasSubentities) + columns.map { .column(alias: SQLGenerationContext.rootAlias, name: $0.0) }
        selectList = ((hasSubentities ? ["t0.Z_PK", "t0.Z_ENT", "t0.Z_OPT"] : ["t0.Z_PK", "t0.Z_OPT"]) + columns.map { "t0.\($0.0)" })
            .joined(separator: ", ")
        var positions: [Int: [Int32?]] = [:]
        var entityPositions: [Int: [Int: Int32]] = [:]
        let first = versionColumn + 1
        let index = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.0, Int32($0) + first) })
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

    /// The columns a row of objects begins with: `t0.Z_PK`, `t0.Z_ENT` when the table holds several
    /// entities, `t0.Z_OPT`.
    private static func leadColumns(_ severalEntities: Bool) -> [SQLExpression] {
        severalEntities ? [FetchSelection.key, FetchSelection.entity, FetchSelection.version] : [FetchSelection.key, FetchSelection.version]
    }

    /// The bookkeeping columns of ``selectColumns`` alone: a fetch's rows without their values.
    var keyColumns: [SQLExpression] { Self.leadColumns(hasSubentities) }

    /// Where a row read by ``selectList`` ends and what a query appends to it begins.
    var endOfSelectList: Int32 { versionColumn + 1 + Int32(columns.count) }

    /// The entity a row read by ``selectList`` (or ``keyColumns``) is of.
    func entityID(_ readEntity: (Int32) -> Int64) -> Int {
        entityColumn.map { Int(readEntity($0)) } ?? rootEntityID
    }

    /// The table of each stored hierarchy (by root entity number): one per root among `entities`.
    static func stored(_ entities: [NSEntityDescription], of model: NSManagedObjectModel) -> [Int: TableInfo] {
        var tables: [Int: TableInfo] = [:]
        for root in entities where root.superentity == nil {
            tables[root.layout.entityID] = TableInfo(root: root, entities: model.entities)
        }
        return tables
    }

    /// Core Data's table: `CREATE TABLE ZPOST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,
    /// ZDATE TIMESTAMP, … )`. With `keepingNegativeZero`, double and float columns are declared without a
    /// type, so that they keep −0.0: for in-memory stores, whose tables are no file Core Data reads.
    func createTable(keepingNegativeZero: Bool = false) -> SQLSchemaChange {
        let own = columns.map { column -> SQLColumnDefinition in
            let isFloat = column.type == .doubleAttributeType || column.type == .floatAttributeType
            return SQLColumnDefinition(column.name, isFloat && keepingNegativeZero ? .untyped : SQLColumnType(column.type) ?? .blob)
        }
        let bookkeeping = [SQLColumnDefinition("Z_PK", .integer, primaryKey: true), SQLColumnDefinition("Z_ENT", .integer),
                           SQLColumnDefinition("Z_OPT", .integer)]
        return .createTable(SQLCreateTable(name: name, columns: bookkeeping + own))
    }

    /// One index per foreign key column (`Z<TABLE>_<COLUMN>_INDEX`, Core Data's naming), and the `Z_ENT`
    /// index when the table holds several entities.
    var indexes: [SQLSchemaChange] {
        ((hasSubentities ? ["Z_ENT"] : []) + indexedColumns).map { column in
            .createIndex(SQLCreateIndex(name: "\(name)_\(column)_INDEX", table: name, columns: [.init(column)]))
        }
    }

    /// The columns of a hierarchy's table in Core Data's order: the entities by number (the root
    /// first), each one's own attributes by name, then its to-ones by name (each with its entity
    /// column), then the order columns of ordered to-manys whose inverse it declares; then a stable sort
    /// by storage class: integers (numbers, Booleans, keys, entity and order columns), dates and
    /// floating-point numbers, decimals, strings, UUIDs, other data. (What every fixture store's
    /// `CREATE TABLE` shows; docs/StoreFormat.md.)
    static func coreDataColumnOrder(_ members: [NSEntityDescription], entities: [NSEntityDescription]) -> [(name: String, type: NSAttributeType)] {
        var ordered: [(name: String, type: NSAttributeType)] = []
        var seen = Set<String>()
        func add(_ column: String, _ type: NSAttributeType) {
            if seen.insert(column).inserted { ordered.append((column, type)) }
        }
        for e in members {
            let own = e.layout.columnSlots.filter { e.layout.properties[$0].entity === e }
                .sorted { ModelNameRules.precedes(e.layout.properties[$0].name, e.layout.properties[$1].name) }
            for slot in own { if case .attribute(let type) = e.layout.kinds[slot] { add(e.layout.columns[slot]!, type) } }
            var orders: [(String, String)] = []
            for slot in own {
                guard case .toOne(let r) = e.layout.kinds[slot], case .foreignKey(let column, let entityColumn) = r.storage else { continue }
                add(column, .integer64AttributeType)
                if let entityColumn { add(entityColumn, .integer64AttributeType) }
                if let inverse = r.relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered, !inverse.isTransient {
                    orders.append((r.relationship.name, "Z_FOK_" + r.relationship.name.uppercased()))
                }
            }
            for (_, column) in orders.sorted(by: { ModelNameRules.precedes($0.0, $1.0) }) { add(column, .integer64AttributeType) }
        }
        func storageClass(_ type: NSAttributeType) -> Int {
            switch type {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: return 0
            case .dateAttributeType, .doubleAttributeType, .floatAttributeType: return 1
            case .decimalAttributeType: return 2
            case .stringAttributeType, .URIAttributeType: return 3
            case .UUIDAttributeType: return 4
            default: return 5
            }
        }
        return ordered.enumerated().sorted { a, b in
            let (x, y) = (storageClass(a.element.type), storageClass(b.element.type))
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
    }

    /// The join tables of a model's many-to-many relationships (and to-manys without an inverse), once each,
    /// between entities whose tables are among `within` (a store's configuration).
    static func joinTables(of model: NSManagedObjectModel, within stored: [Int: TableInfo]) -> [JoinTable] {
        var tables: [String: JoinTable] = [:]
        for e in model.entities where stored[e.layout.rootEntityID] != nil {
            for slot in e.layout.relationshipSlots {
                guard case .toMany(let r) = e.layout.kinds[slot], case .joinTable(let t) = r.storage, t.isOwner,
                      stored[r.destination.layout.rootEntityID] != nil else { continue }
                tables[t.name] = t
            }
        }
        return tables.values.sorted { $0.name < $1.name }
    }
}

extension JoinTable {
    /// `CREATE TABLE Z_2CREATEDENTRIES ( Z_2AUTHORS INTEGER, Z_4CREATEDENTRIES INTEGER[, Z_FOK_2AUTHORS
    /// INTEGER][, Z_FOK_4CREATEDENTRIES INTEGER], PRIMARY KEY (Z_2AUTHORS, Z_4CREATEDENTRIES) )` (the
    /// owner's view: the order of the first column's keys, then of the second's).
    var createTable: SQLSchemaChange {
        let columns = [sourceColumn, destinationColumn] + [otherOrderColumn, orderColumn].compactMap { $0 }
        return .createTable(SQLCreateTable(name: name, columns: columns.map { SQLColumnDefinition($0, .integer) },
                                           primaryKey: [sourceColumn, destinationColumn]))
    }

    /// The index on the second key column (the primary key indexes the first).
    var index: SQLSchemaChange {
        .createIndex(SQLCreateIndex(name: "\(name)_\(destinationColumn)_INDEX", table: name,
                                    columns: [.init(destinationColumn), .init(sourceColumn)]))
    }
}

extension EntityLayout {
    /// The column names of some slots, in order: a to-one with an entity column names both.
    func columnNames(slots: [Int]) -> [String] {
        slots.flatMap { slot -> [String] in
            if case .toOne(let r) = kinds[slot], case .foreignKey(let column, let entityColumn?) = r.storage { return [column, entityColumn] }
            return [columns[slot]!]
        }
    }
}

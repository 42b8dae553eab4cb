import Foundation
import OpenCoreDataPredicates

extension InPlaceMigration {
    /// What happens to a destination table.
    enum TablePlan {
        /// Created empty (its entities are new).
        case create
        /// Created and filled from the source table of this name.
        case rebuild(from: String)
        /// Kept, with columns added (`ALTER TABLE … ADD COLUMN`) and the updates that set their values.
        case alter(added: [(name: String, type: NSAttributeType)], updates: [SQLWrite])
    }

    /// Migrates the store on `db` inside the caller's transaction: checks first (nothing is written when
    /// a required value is missing), then tables, join tables, indexes, `Z_PRIMARYKEY` and `Z_METADATA`.
    func run(_ db: any MigrationDatabase, metadata: [String: Any]) throws {
        let plans = try tablePlans(db)
        try checkRequiredValues(db)
        // What an earlier deferred migration left goes first (the names are taken again below).
        for table in try db.leftoverTables() { try db.execute(.dropTable(table)) }
        var names: [String: String] = [:]
        let keptTables = Set(tables.values.filter { if case .alter = plans[$0.rootEntityID]! { true } else { false } }.map(\.name))
        let replaced = sourceTables.values.map(\.name).filter { !keptTables.contains($0) } + TableInfo.joinTables(of: source, within: sourceTables).map(\.name)
        for name in replaced.sorted() {
            names[name] = "Z_OCDMIGRATING_" + name
            try db.renameTable(name, to: names[name]!)
        }
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            switch plans[table.rootEntityID]! {
            case .create: try db.execute(table.createTable())
            case .rebuild: try db.execute(table.createTable()); try copyRows(into: table, db, names: names)
            case .alter: continue
            }
        }
        try fillJoinTables(db, names: names)
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            guard case .alter(let added, let updates) = plans[table.rootEntityID]! else { continue }
            for column in added { try db.execute(.addColumn(table: table.name, SQLColumnDefinition(column.name, SQLColumnType(column.type) ?? .blob))) }
            for update in updates { try db.run(update) }
        }
        if !defersCleanup {
            for old in names.values.sorted() { try db.execute(.dropTable(old)) }
        }
        try makeIndexes(db)
        try writePrimaryKeys(db)
        var plist = metadata
        for (key, value) in StoreMetadata.plist(for: destination) { plist[key] = value }
        plist[NSPersistentStoreDeferredLightweightMigrationOptionKey] = defersCleanup && !names.isEmpty ? true : nil
        try db.writeMetadata(StoreMetadata.plistToWrite(plist, keeping: [:]))
    }

    /// Each destination table's plan: created, rebuilt, or altered when every row keeps its entity
    /// number and its table and only gains columns (each `NULL`, a default, or a column made required
    /// filled with its default).
    func tablePlans(_ db: any MigrationDatabase) throws -> [Int: TablePlan] {
        var plans: [Int: TablePlan] = [:]
        for table in tables.values {
            let members = destination.entities.filter { $0.layout.rootEntityID == table.rootEntityID }
            let sources = members.compactMap { sourceEntity[ObjectIdentifier($0)] }
            guard let first = sources.first else { plans[table.rootEntityID] = .create; continue }
            let old = sourceTable(of: first)
            plans[table.rootEntityID] = try alterPlan(table, old: old, members: members, db) ?? .rebuild(from: old.name)
        }
        return plans
    }

    private func alterPlan(_ table: TableInfo, old: TableInfo, members: [NSEntityDescription], _ db: any MigrationDatabase) throws -> TablePlan? {
        guard table.name == old.name else { return nil }
        let oldMembers = source.entities.filter { $0.layout.rootEntityID == old.rootEntityID }
        for s in oldMembers {
            guard let n = numbers[s.layout.entityID], n == s.layout.entityID,
                  destination.entities.first(where: { $0.layout.entityID == n })?.layout.rootEntityID == table.rootEntityID else { return nil }
        }
        let oldTypes = Dictionary(uniqueKeysWithValues: old.columns.map { ($0.name, SQLColumnType($0.type)) })
        let newTypes = Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, SQLColumnType($0.type)) })
        guard oldTypes.allSatisfy({ newTypes[$0.key] == $0.value }) else { return nil }
        var updates: [SQLWrite] = []
        for d in members {
            guard let s = sourceEntity[ObjectIdentifier(d)] else { continue }
            let values = rowValues(for: d, names: [:])
            for (column, _) in table.columns {
                switch values[column] ?? .null {
                case .column(let c) where c == column && oldTypes[c] != nil: continue
                case .null where oldTypes[column] == nil: continue
                case .value(let v) where oldTypes[column] == nil:
                    updates.append(.update(SQLUpdate(table: table.name, assignments: [SQLAssignment(column, .parameter(v))],
                                                     conditions: [.equals("Z_ENT", .parameter(.int(Int64(s.layout.entityID))))])))
                case .coalesce(let c, let v) where c == column:
                    updates.append(.update(SQLUpdate(table: table.name, assignments: [SQLAssignment(column, .parameter(v))],
                                                     conditions: [.equals("Z_ENT", .parameter(.int(Int64(s.layout.entityID)))), .isNull(.name(column))])))
                default: return nil
                }
            }
        }
        let added = table.columns.filter { oldTypes[$0.name] == nil }
        return .alter(added: added, updates: updates)
    }

    /// `INSERT INTO <table> … SELECT … FROM <old table> t WHERE t.Z_ENT = <source entity>`, per entity.
    private func copyRows(into table: TableInfo, _ db: any MigrationDatabase, names: [String: String]) throws {
        for d in destination.entities where d.layout.rootEntityID == table.rootEntityID {
            guard let s = sourceEntity[ObjectIdentifier(d)] else { continue }
            let values = rowValues(for: d, names: names)
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"], expressions = ["t.Z_PK", "?", "t.Z_OPT"]
            var arguments: [Value] = [.int(Int64(d.layout.entityID))]
            for (column, _) in table.columns {
                let (text, bound) = (values[column] ?? .null).text
                columns.append(column)
                expressions.append(text)
                arguments += bound
            }
            arguments.append(.int(Int64(s.layout.entityID)))
            let old = names[sourceTable(of: s).name] ?? sourceTable(of: s).name
            _ = try db.run("INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) SELECT \(expressions.joined(separator: ", ")) FROM \(old) t WHERE t.Z_ENT = ?", arguments)
        }
    }

    /// Creates the destination's join tables and fills each from the pairs its relationship (or, when
    /// that one is new, its inverse) had in the source.
    private func fillJoinTables(_ db: any MigrationDatabase, names: [String: String]) throws {
        for e in destination.entities {
            for slot in e.layout.relationshipSlots where e.layout.properties[slot].entity === e {
                guard case .toMany(let r) = e.layout.kinds[slot], case .joinTable(let j) = r.storage, j.isOwner else { continue }
                try db.execute(j.createTable)  // its index comes with the others (see makeIndexes)
                guard let (edges, flipped) = sourceEdges(of: r.relationship, in: e, names: names) else { continue }
                let (a, b, oa, ob) = flipped ? (edges.b, edges.a, edges.ob, edges.oa) : (edges.a, edges.b, edges.oa, edges.ob)
                var columns = [j.sourceColumn, j.destinationColumn], expressions = [a, b]
                if let order = j.orderColumn { columns.append(order); expressions.append(oa == "NULL" ? db.rowNumber : oa) }
                if let order = j.otherOrderColumn { columns.append(order); expressions.append(ob == "NULL" ? db.rowNumber : ob) }
                try db.insertIgnoringDuplicates(into: j.name, columns: columns,
                                                select: "\(expressions.joined(separator: ", ")) FROM \(edges.from) WHERE \(edges.filter)")
            }
        }
    }

    /// The source pairs of a destination relationship, from its source counterpart or, flipped, from
    /// its inverse's.
    private func sourceEdges(of r: NSRelationshipDescription, in e: NSEntityDescription, names: [String: String]) -> (RelationshipEdges, Bool)? {
        if let (s, slot) = sourceProperty(of: r, in: e), let old = s.layout.kinds[slot].relationship, let edges = edges(of: old, names: names) {
            return (edges, false)
        }
        if let inverse = r.inverseRelationship, let target = r.destinationEntity,
           let (s, slot) = sourceProperty(of: inverse, in: target), let old = s.layout.kinds[slot].relationship,
           let edges = edges(of: old, names: names) {
            return (edges, true)
        }
        return nil
    }
}

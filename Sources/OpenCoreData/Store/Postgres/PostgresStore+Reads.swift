import Foundation

/// The PostgreSQL store's reads: the fetch statements the SQLite store builds (``SQLSelect``), printed for
/// PostgreSQL; rows by key through one bound array (`Z_PK = ANY($1)`).
extension PostgresStore {
    func fetchRows(_ plan: FetchPlan, withValues: Bool, limited: Bool, in scope: StoreReadScope) throws -> [StoreRow] {
        let table = table(for: plan.layout)
        let selection = FetchSelection.objects(withValues ? table.selectColumns : table.keyColumns)
        let (sql, arguments) = try text(SQLSelect(fetching: plan, selection, limited: limited))
        return try read(sql, arguments, in: scope).rows.map { row($0, of: table, withValues: withValues) }
    }

    /// Whether printing the plan's statement meets what PostgreSQL cannot evaluate as memory does.
    func needsEvaluationInMemory(_ plan: FetchPlan) -> Bool {
        guard let select = try? SQLSelect(fetching: plan, .objects([FetchSelection.key]), limited: false) else { return false }
        var context = SQLGenerationContext()
        do {
            _ = try PostgresPrinter.sql(select, &context)
            return false
        } catch {
            return error is PostgresPrinter.Unsupported
        }
    }

    func fetchKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> (pks: [Int64], entityRuns: [EntityRun]) {
        let (sql, arguments) = try text(SQLSelect(fetching: plan, .objects([FetchSelection.key, FetchSelection.entity]), limited: true))
        var pks: [Int64] = []
        var runs: [EntityRun] = []
        for row in try read(sql, arguments, in: scope).rows {
            let entityID = Int(row[1].integer ?? 0)
            if runs.last?.entityID != entityID { runs.append(EntityRun(start: pks.count, entityID: entityID)) }
            pks.append(row[0].integer ?? 0)
        }
        if runs.isEmpty { runs = [EntityRun(start: 0, entityID: plan.layout.entityID)] }
        return (pks, runs)
    }

    func count(_ plan: FetchPlan, in scope: StoreReadScope) throws -> Int {
        let (sql, arguments) = try text(SQLSelect(fetching: plan, .count, limited: true))
        return Int(try read(sql, arguments, in: scope).rows.first?.first?.integer ?? 0)
    }

    func loadRows(_ keys: [ObjectKey], in scope: StoreReadScope) throws -> [ObjectKey: StoreRow] {
        var byRoot: [Int: [Int64]] = [:]
        for case .permanent(let root, let pk) in keys { byRoot[root, default: []].append(pk) }
        var result: [ObjectKey: StoreRow] = [:]
        for (root, pks) in byRoot {
            for row in try loadRows(root: root, pks: pks, in: scope) { if let row { result[.permanent(root: root, pk: row.pk)] = row } }
        }
        return result
    }

    func loadRows(root: Int, pks: [Int64], in scope: StoreReadScope) throws -> [StoreRow?] {
        guard let table = tables[root], !pks.isEmpty else { return Array(repeating: nil, count: pks.count) }
        let found = try rows(of: table, pks) { try read($0, $1, in: scope) }
        return pks.map { found[$0] }
    }

    /// The rows of some keys of one table, by key, read by `run` (the pool, or a transaction's connection).
    func rows(of table: TableInfo, _ pks: [Int64], _ run: (String, [Value]) throws -> PostgresResult) throws -> [Int64: StoreRow] {
        let sql = "SELECT \(table.selectList) FROM \(table.name) t0 WHERE t0.Z_PK = ANY($1)"
        var result: [Int64: StoreRow] = [:]
        for row in try run(sql, [Self.keyArray(pks)]).rows {
            let stored = self.row(row, of: table, withValues: true)
            result[stored.pk] = stored
        }
        return result
    }

    /// A list of keys as one bound `bigint[]`.
    static func keyArray(_ pks: [Int64]) -> Value { .array(pks.map { .int($0) }) }

    func loadRelationship(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [Int64: [ObjectRef]] {
        try members(r, owners) { try read($0, $1, in: scope) }
    }

    /// The members of a to-many for some owners, read by `run` (the pool, a generation, or a transaction's
    /// connection).
    func members(_ r: RelationshipLayout, _ owners: [Int64], _ run: (String, [Value]) throws -> PostgresResult) throws -> [Int64: [ObjectRef]] {
        var result: [Int64: [ObjectRef]] = [:]
        for owner in owners { result[owner] = [] }
        guard let members = membersSQL(r) else { return result }
        let (root, entity) = (r.destination.layout.rootEntityID, r.destination.layout.entityID)
        for row in try run(members.sql, [Self.keyArray(owners)]).rows {
            let entityID = members.entityColumn.map { Int(row[Int($0)].integer ?? 0) } ?? entity
            result[row[Int(members.ownerColumn)].integer ?? 0, default: []].append(
                ObjectRef(key: .permanent(root: root, pk: row[0].integer ?? 0), entityID: entityID))
        }
        return result
    }

    func loadRelationship(_ r: RelationshipLayout, owner: Int64, in scope: StoreReadScope) throws -> [ObjectRef] {
        try loadRelationship(r, owners: [owner], in: scope)[owner] ?? []
    }

    /// The members of a to-many for a bound array of owners (`$1`): each member's key, its entity number
    /// when the destination has subentities, and its owner, in the relationship's order per owner.
    func membersSQL(_ r: RelationshipLayout) -> MembersSQL? {
        let table = tables[r.destination.layout.rootEntityID]!
        let oneEntity = r.destination.layout.entityIDs.count == 1
        let (root, entity) = (r.destination.layout.rootEntityID, r.destination.layout.entityID)
        switch r.storage {
        case .inverseForeignKey(let column, let order):
            let rest = "FROM \(table.name) t0 WHERE t0.\(column) = ANY($1) ORDER BY t0.\(column), \(order.map { "t0.\($0), " } ?? "")t0.Z_PK"
            return oneEntity ? MembersSQL(sql: "SELECT t0.Z_PK, t0.\(column) \(rest)", entityColumn: nil, ownerColumn: 1, root: root, entity: entity)
                : MembersSQL(sql: "SELECT t0.Z_PK, t0.Z_ENT, t0.\(column) \(rest)", entityColumn: 1, ownerColumn: 2, root: root, entity: entity)
        case .joinTable(let join):
            let (source, destination) = ("j.\(join.sourceColumn)", "j.\(join.destinationColumn)")
            let order = join.orderColumn.map { "j.\($0), " } ?? ""
            return MembersSQL(sql: "SELECT t0.Z_PK, t0.Z_ENT, \(source) FROM \(join.name) j JOIN \(table.name) t0 ON t0.Z_PK = \(destination) WHERE \(source) = ANY($1) ORDER BY \(source), \(order)t0.Z_PK",
                              entityColumn: 1, ownerColumn: 2, root: root, entity: entity)
        case .foreignKey, .none:
            return nil
        }
    }

    func prefetchToMany(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [(owner: Int, row: StoreRow)] {
        let table = tables[r.destination.layout.rootEntityID]!
        let ownerColumn = Int(table.endOfSelectList)
        let sql: String
        switch r.storage {
        case .inverseForeignKey(let column, let order):
            sql = "SELECT \(table.selectList), t0.\(column) FROM \(table.name) t0 WHERE t0.\(column) = ANY($1) ORDER BY t0.\(column), \(order.map { "t0.\($0), " } ?? "")t0.Z_PK"
        case .joinTable(let join):
            let order = join.orderColumn.map { "j.\($0), " } ?? ""
            sql = "SELECT \(table.selectList), j.\(join.sourceColumn) FROM \(join.name) j JOIN \(table.name) t0 ON t0.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) = ANY($1) ORDER BY j.\(join.sourceColumn), \(order)t0.Z_PK"
        case .foreignKey, .none:
            return []
        }
        var position: [Int64: Int] = [:]
        for (i, owner) in owners.enumerated() where position[owner] == nil { position[owner] = i }
        return try read(sql, [Self.keyArray(owners)], in: scope).rows.compactMap { cells in
            guard let owner = cells[ownerColumn].integer, let index = position[owner] else { return nil }
            return (index, row(cells, of: table, withValues: true))
        }
    }

    func fetchColumns(_ plan: FetchPlan, _ request: DictionaryColumns, in scope: StoreReadScope, row body: ([Value]) throws -> Void) throws {
        let widths = request.widths
        let (sql, arguments) = try text(SQLSelect(fetching: plan, request.selection, limited: true))
        for cells in try read(sql, arguments, in: scope).rows {
            var values: [Value] = []
            var position = 0
            for (i, column) in request.columns.enumerated() {
                let cell = cells[position]
                switch column {
                case .keyPath(let path): values.append(cell.value(as: path.attributeType ?? .undefinedAttributeType))
                case .object(let path):
                    guard let pk = cell.integer else { values.append(.null); break }
                    let destination = path.hops.last!.destination.layout!
                    let entity = widths[i] == 2 ? cells[position + 1].integer.map(Int.init) ?? destination.entityID : destination.entityID
                    values.append(ObjectRef(key: .permanent(root: destination.rootEntityID, pk: pk), entityID: entity).value)
                case .aggregate(_, _, let type):
                    values.append(type == .undefinedAttributeType ? cell.dynamicValue : cell.value(as: type))
                }
                position += widths[i]
            }
            try body(values)
        }
    }

    /// A value that changes with every save that changes the store: the sum of `Z_MAX` (inserts), and
    /// per table its row count (deletes) and a sum over its rows' `Z_PK` and `Z_OPT` (updates), read in
    /// one statement.
    func generation() throws -> String {
        let rowHash = "((Z_PK % 4294967291) * 1000003 + Z_OPT) % 4294967291 * 1640531527 % 4294967291"
        let parts = ["(SELECT COALESCE(SUM(Z_MAX), 0)::text FROM Z_PRIMARYKEY)"] + tables.values.sorted(by: { $0.name < $1.name }).map {
            "(SELECT COUNT(*)::text || '/' || COALESCE(SUM(\(rowHash)), 0)::text FROM \($0.name))"
        }
        return try run("SELECT " + parts.joined(separator: " || ':' || ")).rows.first?.first?.text ?? ""
    }

    /// A row of `table` (read by its select list or key columns): its key, entity number, version and
    /// (when asked) values by storage slot.
    func row(_ cells: [PostgresDatum], of table: TableInfo, withValues: Bool) -> StoreRow {
        let entityID = table.entityID { cells[Int($0)].integer ?? 0 }
        return StoreRow(pk: cells[0].integer ?? 0, entityID: entityID, version: cells[Int(table.versionColumn)].integer ?? 0,
                        values: withValues ? values(of: cells, entityID: entityID) : nil)
    }

    /// A row's values by storage slot, read by its entity's ``RowShape``.
    func values(of cells: [PostgresDatum], entityID: Int) -> [Value] {
        guard entityID >= 0, entityID < rowShapes.count, let shape = rowShapes[entityID] else { return [] }
        return shape.slots.map { slot in
            switch slot {
            case .attribute(let column, let type): return cells[Int(column)].value(as: type)
            case .fixed(let value): return value
            case .transformed(let column, let transform):
                guard case .data(let data) = cells[Int(column)].value(as: .binaryDataAttributeType) else { return .null }
                guard let value = transform.value(for: data) else {
                    storeLogger.error("CoreData: error: \(transform.attribute.entity?.name ?? "?").\(transform.attribute.name): the value transformer cannot make a value of the stored data (\(data.count) bytes); reading nil")
                    return .null
                }
                return value
            case .external(let column): return cells[Int(column)].value(as: .binaryDataAttributeType)
            case .toOne(let column, let entityColumn, let entity, let root):
                guard let pk = cells[Int(column)].integer else { return .null }
                let number = entityColumn.flatMap { cells[Int($0)].integer }.map(Int.init) ?? entity
                return ObjectRef(key: .permanent(root: root, pk: pk), entityID: number).value
            }
        }
    }
}

import Foundation

extension SQLiteStore {
    /// The rows of a to-many relationship's members for some owners, each with its owner's position in
    /// `owners`, in one query (see ``SQLiteKeyList``), in the relationship's order per owner when it is
    /// ordered: what prefetching a to-many reads, members and their values at once.
    func prefetchToMany(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [(owner: Int, row: StoreRow)] {
        let table = tables[r.destination.layout.rootEntityID]!
        var result: [(owner: Int, row: StoreRow)] = []
        try wrap { try read(in: scope.snapshot) { db in
            for chunk in SQLiteKeyList(owners, json: usesJSONKeyLists).chunks {
                let positions = chunk.isJSON ? [:] : SQLiteKeyList.positions(owners, chunk)
                guard let (sql, ownerColumn) = prefetchToManySQL(r, chunk) else { return }
                try db.query(sql, chunk.arguments) { row in
                    let entityID = table.entityID { row.int64($0) }
                    let owner = chunk.isJSON ? Int(row.int64(ownerColumn)) : positions[row.int64(ownerColumn)] ?? chunk.range.lowerBound
                    result.append((owner, StoreRow(pk: row.int64(0), entityID: entityID, version: row.int64(table.versionColumn),
                                                   values: values(of: row, entityID: entityID, table: table))))
                }
            }
        } }
        return result
    }

    /// The `SELECT` of prefetching a to-many for the owners of `chunk`, and the column that names each
    /// row's owner. A JSON key list is joined: each member row (the destination table's select list)
    /// ends with its owner's position (`k.key`), through the join table for a many-to-many, ordered by
    /// owner then order column when the relationship is ordered. Bound parameters use
    /// ``memberRowsSQL(_:keyList:)``, whose rows name the owner's key. `nil` for a relationship that is
    /// not a stored to-many.
    func prefetchToManySQL(_ r: RelationshipLayout, _ chunk: SQLiteKeyList.Chunk) -> (sql: String, ownerColumn: Int32)? {
        guard chunk.isJSON else { return memberRowsSQL(r, keyList: chunk.inOperand) }
        let table = tables[r.destination.layout.rootEntityID]!
        let select = "SELECT \(table.selectList), k.key FROM \(SQLiteKeyList.joined)"
        let position = table.endOfSelectList
        switch r.storage {
        case .inverseForeignKey(let column, let order):
            return ("\(select) JOIN \(table.name) t0 ON t0.\(column) = k.value" + (order.map { " ORDER BY k.key, t0.\($0)" } ?? ""), position)
        case .joinTable(let join):
            return ("\(select) JOIN \(join.name) j ON j.\(join.sourceColumn) = k.value JOIN \(table.name) t0 ON t0.Z_PK = j.\(join.destinationColumn)"
                    + (join.orderColumn.map { " ORDER BY k.key, j.\($0)" } ?? ""), position)
        case .foreignKey, .none:
            return nil
        }
    }
}

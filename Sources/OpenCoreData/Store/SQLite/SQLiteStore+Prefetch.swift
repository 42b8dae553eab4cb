import Foundation

extension SQLiteStore {
    /// The rows of a to-many relationship's members for some owners, each with its owner's key, in one
    /// query (see ``SQLiteKeyList``), in the relationship's order per owner: what prefetching a to-many
    /// reads, members and their values at once.
    func prefetchToMany(_ r: RelationshipLayout, owners: [Int64]) throws -> [(owner: Int64, row: StoreRow)] {
        let table = tables[r.destination.layout.root.layout.entityID]!
        var result: [(owner: Int64, row: StoreRow)] = []
        try wrap { try read { db in
            for chunk in SQLiteKeyList(owners, json: usesJSONKeyLists).chunks {
                guard let (sql, ownerColumn) = toManySQL(r, keyList: chunk.sql, rows: true) else { return }
                try db.query(sql, chunk.arguments) { row in
                    let entityID = Int(row.int64(1))
                    result.append((row.int64(ownerColumn),
                                   StoreRow(pk: row.int64(0), entityID: entityID, version: row.int64(2),
                                            values: values(of: row, entityID: entityID, table: table))))
                }
            }
        } }
        return result
    }
}

import Foundation

extension SQLiteStore {
    /// `NSBatchInsertRequest`: writes new rows of one entity in one transaction, with its prepared
    /// `INSERT`. Under uniqueness constraints it upserts, as Core Data's batch insert does: a row whose
    /// constrained values match a stored row (or an earlier row of the same request) updates that row's
    /// given attributes instead, raising its version. Returns the row each object went to, in order, and
    /// the stored rows it updated.
    func batchInsert(_ layout: EntityLayout, _ rows: [BatchInsertRow], origin: HistoryOrigin) throws -> (written: [BatchRow], updated: [BatchRow]) {
        let constraints = model.entity(number: layout.entityID).map(UniquenessConstraint.applying(to:)) ?? []
        let root = layout.rootEntityID
        return try batchTransaction("execute a batch insert") { db in
            let (owner, stored) = try BatchInsertOwners.find(rows, constraints) { try storedRow(matching: $0, $1, db) }
            var result = [BatchRow?](repeating: nil, count: rows.count)
            let inserted = rows.indices.filter { owner[$0] == $0 && stored[$0] == nil }
            var next = try reserveKeys(root: root, count: inserted.count, db)
            let statement = try db.statement(insertSQL[layout.entityID]!)
            let keys = KeyResolver(inserted: KeyRenaming([]))
            let asGiven = bindsAsGiven(layout)
            for i in inserted {
                try write(layout, rows[i].values, pk: next, keys: keys, with: statement,
                          asGiven: asGiven, db)
                result[i] = BatchRow(root: root, pk: next, entityID: layout.entityID)
                next += 1
            }
            var statements = UpdateStatements()
            for i in rows.indices where result[i] == nil {
                let target = stored[owner[i]] ?? result[owner[i]]!
                try update(target, with: rows[i], layout, keys: keys, &statements, db)
                result[i] = target
            }
            let written = result.map { $0! }
            let updated = stored.keys.sorted().map { stored[$0]! }
            if tracksHistory {
                var records = inserted.map { HistoryRecord(kind: .insert, entityID: layout.entityID, pk: written[$0].pk) }
                let insertedSet = Set(inserted)
                for i in rows.indices where !insertedSet.contains(i) {
                    records.append(HistoryRecord(kind: .update, entityID: written[i].entityID, pk: written[i].pk, columns: rows[i].given))
                }
                try recordHistory(records, origin: origin, db)
            }
            return (written, updated)
        }
    }

    /// Writes the given attributes of a batch-inserted object into the stored row it matched.
    private func update(_ target: BatchRow, with row: BatchInsertRow, _ layout: EntityLayout, keys: KeyResolver,
                        _ statements: inout UpdateStatements, _ db: SQLiteConnection) throws {
        var version: Int64 = 0
        try db.query("SELECT Z_OPT FROM \(table(for: layout).name) WHERE Z_PK = ?", [.int(target.pk)]) { version = $0.int64(0) }
        let slots = row.given.filter { layout.columns[$0] != nil }
        _ = try writeRow(try model.layout(entityID: target.entityID), pk: target.pk, slots: slots, values: row.values,
                         newVersion: version + 1, expected: version, keys: keys, &statements, db)
    }

    /// A stored row of the constraint's entities whose constrained columns hold `values` (`IS`: nil
    /// matches nil, as the context's constraint check compares).
    private func storedRow(matching c: UniquenessConstraint, _ values: [Value], _ db: SQLiteConnection) throws -> BatchRow? {
        guard let layout = c.entity.layout else { return nil }
        let columns = c.slots.compactMap { layout.columns[$0] }
        guard columns.count == c.slots.count else { return nil }
        let entities = layout.entityIDs.map(String.init).joined(separator: ", ")
        let condition = columns.map { "\($0) IS ?" }.joined(separator: " AND ")
        var found: BatchRow? = nil
        try db.query("SELECT Z_PK, Z_ENT FROM \(table(for: layout).name) WHERE Z_ENT IN (\(entities)) AND \(condition) LIMIT 1", values) { row in
            found = BatchRow(root: layout.rootEntityID, pk: row.int64(0), entityID: Int(row.int64(1)))
        }
        return found
    }
}

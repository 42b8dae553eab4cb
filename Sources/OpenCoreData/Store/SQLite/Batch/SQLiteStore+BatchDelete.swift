import Foundation

extension SQLiteStore {
    /// `NSBatchDeleteRequest`: deletes the target rows in one transaction, with the model's delete rules
    /// applied at the row level, as Core Data's batch delete applies them: cascade deletes the
    /// destinations (and theirs), nullify clears a destination's to-one pointing back, no action leaves
    /// it, and deny refuses the whole request when a deleted row still has a destination. Join-table rows
    /// and external files of deleted rows go too.
    func batchDelete(_ target: BatchDeleteTarget, origin: HistoryOrigin) throws -> BatchDeleteOutcome {
        let matchSQL: (String, [Value])? = try {
            guard case .matching(let plan) = target else { return nil }
            return try selectSQL(plan, .objects([FetchSelection.key, FetchSelection.entity]), limited: true)
        }()
        return try batchTransaction("execute a batch delete") { db in
            var start: [BatchRow] = []
            switch target {
            case .matching(let plan):
                try db.query(matchSQL!.0, matchSQL!.1) { row in
                    start.append(BatchRow(root: plan.layout.rootEntityID, pk: row.int64(0), entityID: Int(row.int64(1))))
                }
            case .keys(let root, let pks):
                start = try existingRows(root: root, pks: pks, db)
            }
            var outcome = BatchDeleteOutcome()
            var nullify: [Nullified] = []
            outcome.deleted = try BatchDeleteClosure.rows(from: start, model: model, destinations: { r, slot, layout, owners in
                try destinations(r, slot: slot, layout: layout, owners: owners, db)
            }, nullify: { nullify.append($0) })
            let deleted = Set(outcome.deleted)
            for n in nullify where !deleted.contains(n.row) {
                let sets = ([n.column] + (n.entityColumn.map { [$0] } ?? [])).map { SQLAssignment($0, .null) }
                    + [SQLAssignment("Z_OPT", .arithmetic(.name("Z_OPT"), .add, .integer(1)))]
                try db.run(.update(SQLUpdate(table: table(for: n.layout).name, assignments: sets, conditions: [.equals("Z_PK", .parameter(.int(n.row.pk)))])))
                outcome.nullified.append(n.row)
            }
            let tombstones = try historyTombstones(outcome.deleted.map { (try model.layout(entityID: $0.entityID), $0.pk) }, db)
            try deleteRows(outcome.deleted, db)
            let updated = nullify.filter { !deleted.contains($0.row) }
                .map { HistoryRecord(kind: .update, entityID: $0.row.entityID, pk: $0.row.pk, columns: [$0.slot]) }
            try recordHistory(updated + outcome.deleted.map { HistoryRecord(kind: .delete, entityID: $0.entityID, pk: $0.pk, tombstone: tombstones[$0.pk] ?? []) },
                              origin: origin, db)
            return outcome
        }
    }

    /// The rows of some keys of a hierarchy that exist, with their entity numbers, in the keys' order.
    private func existingRows(root: Int, pks: [Int64], _ db: SQLiteConnection) throws -> [BatchRow] {
        guard let table = tables[root] else { return [] }
        var found: [Int64: Int] = [:]
        for chunk in SQLiteKeyList(pks, json: usesJSONKeyLists).chunks {
            try db.query("SELECT Z_PK, Z_ENT FROM \(table.name) WHERE Z_PK IN \(chunk.inOperand)", chunk.arguments) { row in
                found[row.int64(0)] = Int(row.int64(1))
            }
        }
        var seen = Set<Int64>()
        return pks.compactMap { pk in found[pk].flatMap { seen.insert(pk).inserted ? BatchRow(root: root, pk: pk, entityID: $0) : nil } }
    }

    /// The objects a relationship of some rows names, with their owners.
    private func destinations(_ r: RelationshipLayout, slot: Int, layout: EntityLayout, owners: [Int64],
                              _ db: SQLiteConnection) throws -> [(owner: Int64, ref: ObjectRef)] {
        guard case .toOne = layout.kinds[slot] else {
            return try loadRelationship(r, owners: owners, db).sorted { $0.key < $1.key }.flatMap { owner, refs in refs.map { (owner, $0) } }
        }
        guard case .foreignKey(let column, let entityColumn) = r.storage else { return [] }
        var result: [(owner: Int64, ref: ObjectRef)] = []
        for chunk in SQLiteKeyList(owners, json: usesJSONKeyLists).chunks {
            let entitySQL = entityColumn.map { ", \($0)" } ?? ""
            try db.query("SELECT Z_PK, \(column)\(entitySQL) FROM \(table(for: layout).name) WHERE Z_PK IN \(chunk.inOperand) AND \(column) IS NOT NULL",
                         chunk.arguments) { row in
                let entity = entityColumn == nil ? r.destinationEntityID : Int(row.int64(2))
                result.append((row.int64(0), ObjectRef(key: .permanent(root: r.destinationRootID, pk: row.int64(1)), entityID: entity)))
            }
        }
        return result
    }

    /// Deletes rows with their join-table rows, their external files going after the commit: per entity,
    /// one statement per chunk of keys for each (``SQLiteKeyList``), whatever the number of rows.
    private func deleteRows(_ rows: [BatchRow], _ db: SQLiteConnection) throws {
        for (entityID, group) in Dictionary(grouping: rows, by: \.entityID).sorted(by: { $0.key < $1.key }) {
            let layout = try model.layout(entityID: entityID)
            let pks = group.map(\.pk)
            saveFiles?.obsolete += try externalFiles(layout, pks: pks, slots: attributeSlots(layout), db)
            try deleteJoinRows(layout, pks: pks, db)
            for chunk in SQLiteKeyList(pks, json: usesJSONKeyLists).chunks {
                try db.run("DELETE FROM \(table(for: layout).name) WHERE Z_PK IN \(chunk.inOperand)", chunk.arguments)
            }
        }
    }
}

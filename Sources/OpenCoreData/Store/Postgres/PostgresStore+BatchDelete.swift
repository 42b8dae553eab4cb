import Foundation

/// `NSBatchDeleteRequest` on PostgreSQL: the matching rows and everything their delete rules reach, at the
/// row level, in one transaction (the SQLite store's rules: cascade follows, nullify clears the inverse
/// to-one and raises that row's version, deny refuses the whole request).
extension PostgresStore {
    func batchDelete(_ target: BatchDeleteTarget, origin: HistoryOrigin) throws -> BatchDeleteOutcome {
        let matchSQL: (String, [Value])? = try {
            guard case .matching(let plan) = target else { return nil }
            return try text(SQLSelect(fetching: plan, .objects([FetchSelection.key, FetchSelection.entity]), limited: true))
        }()
        if isReadOnly { throw readOnlyError("execute a batch delete") }
        return try transaction { session in
            let start: [BatchRow]
            switch target {
            case .matching(let plan):
                start = try run(matchSQL!.0, matchSQL!.1, on: session).rows.map {
                    BatchRow(root: plan.layout.rootEntityID, pk: $0[0].integer ?? 0, entityID: Int($0[1].integer ?? 0))
                }
            case .keys(let root, let pks):
                start = try existingRows(root: root, pks: pks, session)
            }
            var outcome = BatchDeleteOutcome()
            var nullify: [Nullified] = []
            outcome.deleted = try BatchDeleteClosure.rows(from: start, model: model, destinations: { r, slot, layout, owners in
                try destinations(r, slot: slot, layout: layout, owners: owners, session)
            }, nullify: { nullify.append($0) })
            let deleted = Set(outcome.deleted)
            for n in nullify where !deleted.contains(n.row) {
                let sets = ([n.column] + (n.entityColumn.map { [$0] } ?? [])).map { SQLAssignment($0, .null) }
                    + [SQLAssignment("Z_OPT", .arithmetic(.name("Z_OPT"), .add, .integer(1)))]
                try run(.update(SQLUpdate(table: table(for: n.layout).name, assignments: sets, conditions: [.equals("Z_PK", .parameter(.int(n.row.pk)))])), on: session)
                outcome.nullified.append(n.row)
            }
            let tombstones = try historyTombstones(outcome.deleted.map { (try model.layout(entityID: $0.entityID), $0.pk) }, session)
            var writer = PostgresRowWriter(store: self, session: session)
            for (entityID, group) in Dictionary(grouping: outcome.deleted, by: \.entityID).sorted(by: { $0.key < $1.key }) {
                let layout = try model.layout(entityID: entityID)
                let pks = group.map(\.pk)
                try writer.deleteRelationships(layout, pks: pks)
                try run("DELETE FROM \(table(for: layout).name) WHERE Z_PK = ANY($1)", [Self.keyArray(pks)], on: session)
            }
            let updated = nullify.filter { !deleted.contains($0.row) }
                .map { HistoryRecord(kind: .update, entityID: $0.row.entityID, pk: $0.row.pk, columns: [$0.slot]) }
            let number = try recordHistory(updated + outcome.deleted.map { HistoryRecord(kind: .delete, entityID: $0.entityID, pk: $0.pk, tombstone: tombstones[$0.pk] ?? []) },
                                           origin: origin, session)
            if !outcome.deleted.isEmpty { try noticeChange(session, historyNumber: number) }
            return outcome
        }
    }

    private func existingRows(root: Int, pks: [Int64], _ session: any PostgresSession) throws -> [BatchRow] {
        guard let table = tables[root] else { return [] }
        var found: [Int64: Int] = [:]
        for row in try run("SELECT Z_PK, Z_ENT FROM \(table.name) WHERE Z_PK = ANY($1)", [Self.keyArray(pks)], on: session).rows {
            found[row[0].integer ?? 0] = Int(row[1].integer ?? 0)
        }
        var seen = Set<Int64>()
        return pks.compactMap { pk in found[pk].flatMap { seen.insert(pk).inserted ? BatchRow(root: root, pk: pk, entityID: $0) : nil } }
    }

    /// The objects a relationship of some owners names, with their owners.
    private func destinations(_ r: RelationshipLayout, slot: Int, layout: EntityLayout, owners: [Int64],
                              _ session: any PostgresSession) throws -> [(owner: Int64, ref: ObjectRef)] {
        guard case .toOne = layout.kinds[slot] else {
            return try members(r, owners) { try run($0, $1, on: session) }.sorted { $0.key < $1.key }.flatMap { owner, refs in refs.map { (owner, $0) } }
        }
        guard case .foreignKey(let column, let entityColumn) = r.storage else { return [] }
        let sql = "SELECT Z_PK, \(column)\(entityColumn.map { ", \($0)" } ?? "") FROM \(table(for: layout).name) WHERE Z_PK = ANY($1) AND \(column) IS NOT NULL"
        return try run(sql, [Self.keyArray(owners)], on: session).rows.map { row in
            let entity = entityColumn == nil ? r.destinationEntityID : Int(row[2].integer ?? 0)
            return (row[0].integer ?? 0, ObjectRef(key: .permanent(root: r.destinationRootID, pk: row[1].integer ?? 0), entityID: entity))
        }
    }
}

import Foundation

/// `NSBatchInsertRequest`, `NSBatchUpdateRequest` and `NSBatchDeleteRequest` on PostgreSQL: each in one
/// transaction of its own, rows written by the save's ``PostgresRowWriter``, history recorded when the
/// store tracks it, and a change notice sent, as a save does. The semantics are the SQLite store's
/// (docs/BatchRequests.md): updates raise each row's version, deletes follow the delete rules at the row
/// level, inserts upsert under uniqueness constraints.
extension PostgresStore: BatchRequestStore {
    /// Runs `body` in a transaction with the batch's change notice, which carries the history
    /// transaction number `body` returns with its result.
    private func batchTransaction<T>(_ operation: String, _ body: (any PostgresSession) throws -> (T, Int64?)) throws -> T {
        if isReadOnly { throw readOnlyError(operation) }
        return try transaction { session in
            let (result, number) = try body(session)
            try noticeChange(session, historyNumber: number)
            return result
        }
    }

    func batchUpdate(_ plan: FetchPlan, _ assignments: [BatchAssignment], origin: HistoryOrigin) throws -> [BatchRow] {
        let computed = assignments.compactMap { a -> (ExpressionNode, NSAttributeType)? in
            if case .expression(let node, let type) = a.source { return (node, type) }
            return nil
        }
        let (sql, arguments) = try text(SQLSelect(fetching: plan, .dictionaries(distinct: false) { translator in
            var columns = [FetchSelection.key, FetchSelection.entity, FetchSelection.version]
            for (node, _) in computed { columns.append(try translator.operand(node).expression) }
            return (columns, nil, nil)
        }, limited: true))
        let root = plan.layout.rootEntityID
        return try batchTransaction("execute a batch update") { session in
            let matches = try run(sql, arguments, on: session).rows.map { row in
                (row: BatchRow(root: root, pk: row[0].integer ?? 0, entityID: Int(row[1].integer ?? 0)), version: row[2].integer ?? 0,
                 computed: computed.indices.map { row[3 + $0].value(as: computed[$0].1) })
            }
            var writer = PostgresRowWriter(store: self, session: session)
            let keys = KeyResolver(inserted: KeyRenaming([]))
            let slots = assignments.map(\.slot)
            for match in matches {
                let layout = try model.layout(entityID: match.row.entityID)
                let values = assignments.values(count: layout.kinds.count, computed: match.computed)
                guard try writer.update(layout, pk: match.row.pk, slots: slots, values: values, newVersion: match.version + 1,
                                        expected: match.version, keys: keys) else {
                    throw CoreDataError(NSPersistentStoreOperationError, "A batch update found row \(match.row.pk) of \(layout.tableName) changed by another transaction while it ran; nothing was written.")
                }
            }
            let number = try recordHistory(matches.map { HistoryRecord(kind: .update, entityID: $0.row.entityID, pk: $0.row.pk, columns: slots) },
                                           origin: origin, session)
            return (matches.map(\.row), number)
        }
    }

    func batchInsert(_ layout: EntityLayout, _ rows: [BatchInsertRow], origin: HistoryOrigin) throws -> (written: [BatchRow], updated: [BatchRow]) {
        let constraints = model.entity(number: layout.entityID).map(UniquenessConstraint.applying(to:)) ?? []
        let root = layout.rootEntityID
        return try batchTransaction("execute a batch insert") { session in
            let (owner, stored) = try BatchInsertOwners.find(rows, constraints) { try storedRow(matching: $0, $1, session) }
            var result = [BatchRow?](repeating: nil, count: rows.count)
            let inserted = rows.indices.filter { owner[$0] == $0 && stored[$0] == nil }
            var writer = PostgresRowWriter(store: self, session: session)
            var next = inserted.isEmpty ? 0 : try writer.reserveKeys(root: root, count: inserted.count)
            let keys = KeyResolver(inserted: KeyRenaming([]))
            for i in inserted {
                try writer.insert(layout, pk: next, values: rows[i].values, version: 1, keys: keys)
                result[i] = BatchRow(root: root, pk: next, entityID: layout.entityID)
                next += 1
            }
            try writer.flush()
            for i in rows.indices where result[i] == nil {
                let target = stored[owner[i]] ?? result[owner[i]]!
                let version = try run("SELECT Z_OPT FROM \(table(for: layout).name) WHERE Z_PK = $1", [.int(target.pk)], on: session).rows.first?.first?.integer ?? 0
                _ = try writer.update(try model.layout(entityID: target.entityID), pk: target.pk, slots: rows[i].given.filter { layout.columns[$0] != nil },
                                      values: rows[i].values, newVersion: version + 1, expected: version, keys: keys)
                result[i] = target
            }
            let written = result.map { $0! }
            var number: Int64?
            if tracksHistory {
                let insertedSet = Set(inserted)
                let records = inserted.map { HistoryRecord(kind: .insert, entityID: layout.entityID, pk: written[$0].pk) }
                    + rows.indices.filter { !insertedSet.contains($0) }.map { HistoryRecord(kind: .update, entityID: written[$0].entityID, pk: written[$0].pk, columns: rows[$0].given) }
                number = try recordHistory(records, origin: origin, session)
            }
            return ((written, stored.keys.sorted().map { stored[$0]! }), number)
        }
    }

    /// The stored row holding a constraint's values (null-safe), if any.
    private func storedRow(matching c: UniquenessConstraint, _ values: [Value], _ session: any PostgresSession) throws -> BatchRow? {
        guard let layout = c.entity.layout else { return nil }
        let columns = c.slots.compactMap { layout.columns[$0] }
        guard columns.count == c.slots.count else { return nil }
        let entities = layout.entityIDs.map(String.init).joined(separator: ", ")
        let condition = columns.enumerated().map { "\($1) IS NOT DISTINCT FROM $\($0 + 1)" }.joined(separator: " AND ")
        let row = try run("SELECT Z_PK, Z_ENT FROM \(table(for: layout).name) WHERE Z_ENT IN (\(entities)) AND \(condition) LIMIT 1", values, on: session).rows.first
        return row.map { BatchRow(root: layout.rootEntityID, pk: $0[0].integer ?? 0, entityID: Int($0[1].integer ?? 0)) }
    }
}

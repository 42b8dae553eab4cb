import Foundation

extension SQLiteStore {
    /// `NSBatchUpdateRequest`: sets attributes of every row matching `plan`, each row's version
    /// (`Z_OPT`) raised as a save raises it, in one transaction. Expressions are computed in SQL from
    /// the row (and the rows its to-one key paths reach) as it was before the update. Returns the
    /// updated rows; persistent history records them as one transaction.
    func batchUpdate(_ plan: FetchPlan, _ assignments: [BatchAssignment], origin: HistoryOrigin) throws -> [BatchRow] {
        let computed = assignments.compactMap { a -> (ExpressionNode, NSAttributeType)? in
            if case .expression(let node, let type) = a.source { return (node, type) }
            return nil
        }
        let (sql, arguments) = try selectSQL(plan, .dictionaries(distinct: false) { translator in
            var columns = [FetchSelection.key, FetchSelection.entity, FetchSelection.version]
            for (node, _) in computed { columns.append(try translator.operand(node).expression) }
            return (columns, nil, nil)
        }, limited: true)
        let root = plan.layout.rootEntityID
        return try batchTransaction("execute a batch update") { db in
            var matches: [(row: BatchRow, version: Int64, computed: [Value])] = []
            try db.query(sql, arguments) { row in
                let values = computed.indices.map { row.value(Int32(3 + $0), as: computed[$0].1) }
                matches.append((BatchRow(root: root, pk: row.int64(0), entityID: Int(row.int64(1))), row.int64(2), values))
            }
            var statements = UpdateStatements()
            let keys = KeyResolver(inserted: KeyRenaming([]))
            let slots = assignments.map(\.slot)
            for match in matches {
                let layout = try model.layout(entityID: match.row.entityID)
                let values = assignments.values(count: layout.kinds.count, computed: match.computed)
                guard try writeRow(layout, pk: match.row.pk, slots: slots, values: values, newVersion: match.version + 1,
                                   expected: match.version, keys: keys, &statements, db) else {
                    throw CoreDataError(NSPersistentStoreOperationError, "A batch update found row \(match.row.pk) of \(layout.tableName) changed inside its own transaction.")
                }
            }
            try recordHistory(matches.map { HistoryRecord(kind: .update, entityID: $0.row.entityID, pk: $0.row.pk, columns: slots) }, origin: origin, db)
            return matches.map(\.row)
        }
    }
}

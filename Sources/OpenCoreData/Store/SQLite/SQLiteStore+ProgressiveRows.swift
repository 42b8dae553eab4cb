import Foundation

extension SQLiteStore {
    /// A fetched results controller's results in time proportional to its first batch
    /// (``ProgressiveRows``): on the store's key reader (``SQLiteKeyReader``), on a connection of its reader
    /// pool, in one read transaction, the number of matches (`COUNT(*)`, per first sort value with
    /// `GROUP BY` when `groupedByFirstSort`) and the first batch's rows with their values (`LIMIT`), handed
    /// back at once; then every match's key (and entity, when the entity has subentities) and sort values
    /// in the fetch's order, handed over when the last is read, the transaction ending with it.
    ///
    /// `nil` when the fetch is not one this serves (the controller then fetches every object first): a
    /// sort term that is not a plain attribute column of the fetched entity (a key path through a
    /// relationship, a transformable or externally stored value), a `fetchLimit` or `fetchOffset`, a scope
    /// reading a query generation, an in-memory store or a pool of one reader, or when the key reader or
    /// the pool's readers past the first are busy.
    func progressiveRows(_ plan: FetchPlan, groupedByFirstSort: Bool, in scope: StoreReadScope) throws -> ProgressiveRows? {
        guard plan.limit == 0, plan.offset == 0, plan.batchSize > 0, scope.snapshot == nil, readerConnectionCount > 1,
              let sorts = plainSortColumns(plan), !sorts.isEmpty else { return nil }
        let mixed = plan.layout.entityIDs.count > 1
        let keys = mixed ? [FetchSelection.key, FetchSelection.entity] : [FetchSelection.key]
        let all = ProgressiveQuery(text: try sql(SQLSelect(fetching: plan, .objects(keys + sorts.map(\.column)), limited: false)),
                                   types: sorts.map(\.type), entityID: mixed ? nil : plan.layout.entityID)
        let counting = try countingSQL(plan, groupedBy: groupedByFirstSort ? sorts[0] : nil)
        let start = ReaderHandoff<ProgressiveRows?>()
        guard keyReader.start({ self.readRows(plan, counting, all, start) }) else { return nil }
        return try start.wait()
    }

    /// The column and type of each sort term, when every one is a plain attribute column of the fetched
    /// entity (its value read as a fetch reads the attribute).
    private func plainSortColumns(_ plan: FetchPlan) -> [(column: SQLExpression, type: NSAttributeType)]? {
        let entityID = plan.layout.entityID
        guard entityID < rowShapes.count, let shape = rowShapes[entityID] else { return nil }
        var result: [(column: SQLExpression, type: NSAttributeType)] = []
        for sort in plan.sorts {
            guard sort.keyPath.hops.isEmpty, case .attribute(let slot, let type, let column?) = sort.keyPath.terminal,
                  slot < shape.attributeColumns.count, shape.attributeColumns[slot] != nil else { return nil }
            result.append((.column(alias: SQLGenerationContext.rootAlias, name: column), type))
        }
        return result
    }

    /// `SELECT COUNT(*)` of the matches; with `groupedBy`, the first sort column and its count per value,
    /// in the fetch's order of that column.
    private func countingSQL(_ plan: FetchPlan, groupedBy first: (column: SQLExpression, type: NSAttributeType)?) throws -> ProgressiveQuery {
        guard let first else { return ProgressiveQuery(text: try countSQL(plan), types: [], entityID: nil) }
        var select = try SQLSelect(fetching: plan, .objects([first.column, .function(.count, [FetchSelection.key])]), limited: false)
        select.groupBy = [first.column]
        select.orderBy = Array(select.orderBy.prefix(1))
        return ProgressiveQuery(text: sql(select), types: [first.type], entityID: nil)
    }

    /// The reader's work for one controller: the counts and the first batch handed to `start`, then every
    /// row to the progressive rows, all in one read transaction on a free reader of the pool.
    private func readRows(_ plan: FetchPlan, _ counting: ProgressiveQuery, _ all: ProgressiveQuery, _ start: ReaderHandoff<ProgressiveRows?>) {
        let served: Void? = readIfIdle { db in
            var snapshot: SQLiteSnapshot!
            let rows: ProgressiveRows
            do {
                try wrap { snapshot = try SQLiteSnapshot(self, borrowing: db) }
                let scope = StoreReadScope(snapshot: snapshot)
                let groups = try readGroups(counting, in: snapshot)
                let first = try fetchRows(plan.range(offset: 0, limit: plan.batchSize), withValues: true, limited: true, in: scope)
                rows = ProgressiveRows(groups: groups, first: first)
                start.finish(rows)
            } catch {
                return start.fail(error)
            }
            keyReaderGate?()
            rows.finish(Self.readAll(all, from: snapshot, for: rows))
        }
        if served == nil { start.finish(nil) }
    }

    /// The counts: one group of every match (none when there is none), or one per first sort value.
    private func readGroups(_ counting: ProgressiveQuery, in snapshot: SQLiteSnapshot) throws -> [(value: Value, count: Int)] {
        var groups: [(value: Value, count: Int)] = []
        let grouped = !counting.types.isEmpty
        try wrap {
            try snapshot.read { db in
                try db.query(counting.text.0, counting.text.1) { row in
                    let count = Int(row.int64(grouped ? 1 : 0))
                    if count > 0 { groups.append((grouped ? row.value(0, as: counting.types[0]) : .null, count)) }
                }
            }
        }
        return groups
    }

    /// Every match's key, entity and sort values in `snapshot`, until the last or until nobody wants them.
    private static func readAll(_ query: ProgressiveQuery, from snapshot: SQLiteSnapshot, for rows: ProgressiveRows) -> Result<[ProgressiveRows.Row], any Error> {
        var result: [ProgressiveRows.Row] = []
        result.reserveCapacity(rows.groups.reduce(0) { $0 + $1.count })
        let first: Int32 = query.entityID == nil ? 2 : 1
        do {
            try snapshot.read { db in
                // A sorted query reads every row before its first: abandoning interrupts it.
                try rows.whileReading(interrupt: db.interrupter) {
                    try db.query(query.text.0, query.text.1) { row in
                        if rows.isAbandoned { throw CancellationError() }
                        var values: [Value] = []
                        values.reserveCapacity(query.types.count)
                        for (i, type) in query.types.enumerated() { values.append(row.value(first + Int32(i), as: type)) }
                        result.append(ProgressiveRows.Row(pk: row.int64(0), entityID: query.entityID ?? Int(row.int64(1)), values: values))
                    }
                }
            }
        } catch let error as SQLiteError {
            return .failure(error.coreDataError)
        } catch {
            return .failure(error)
        }
        return .success(result)
    }
}

/// A statement of a controller's progressive read: its text and arguments, the types of the values it
/// reads after the key (and entity), and the entity every row is of when it does not read `Z_ENT`.
private struct ProgressiveQuery {
    let text: (String, [Value])
    let types: [NSAttributeType]
    let entityID: Int?
}

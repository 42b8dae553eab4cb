import Foundation

extension SQLiteStore {
    /// The keys of a batched fetch in time proportional to its first batch: in a read transaction of its
    /// own (``SQLiteSnapshot``), the number of matches (`COUNT(*)`) and the first batch's keys (`LIMIT`,
    /// the fetch's order with `Z_PK` breaking ties); then, on a thread of its own in the same transaction,
    /// every key in that order, delivered as it is read, the transaction ending with the last. So the
    /// keys are the ones a full fetch would have read when this one began, whatever is saved meanwhile.
    ///
    /// The objects' entity comes back too: the fetched entity's. `nil` when the fetch is not one this
    /// serves (the caller reads every key first, as before): a match of a subentity (each object's class
    /// depends on its row; asked in the same transaction, through the table's `Z_ENT` index), a
    /// `fetchLimit` or `fetchOffset`, a context pinned to a query generation, an in-memory store.
    func progressiveKeys(_ plan: FetchPlan) throws -> BatchKeys? {
        guard plan.limit == 0, plan.offset == 0, plan.batchSize > 0, QueryGenerationScope.snapshot == nil,
              let snapshot = try makeSQLiteSnapshot() else { return nil }
        let found: (count: Int, first: [Int64])? = try QueryGenerationScope.reading(snapshot) {
            if plan.layout.entityIDs.count > 1, try matchesOtherEntities(plan) { return nil }
            return (try self.count(plan), try fetchKeys(plan.range(offset: 0, limit: plan.batchSize)).pks)
        }
        guard let found else { return nil }
        let keys = BatchKeys(count: found.count, first: found.first)
        if found.first.count < found.count {
            // The keys alone (every match is of the plan's entity): an index matching the sort covers them.
            let (sql, arguments) = try selectSQL(plan, .objects([FetchSelection.key]), limited: false)
            let gate = keyReaderGate
            Thread.detachNewThread {
                Self.yieldToForeground()
                gate?()
                Self.deliverKeys(sql, arguments, after: found.first.count, from: snapshot, to: keys)
            }
        }
        return keys
    }

    /// Lowers the calling thread's scheduling priority (nice 10; on Linux a thread's own), so that the key
    /// reader takes what the cores have spare: the context's thread, making the array and loading the first
    /// batch, comes first when both want a core. Touching an object whose key is still to come waits for the
    /// reader, which then has the core to itself.
    private static func yieldToForeground() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }

    /// Whether a row of another entity than the plan's own (a subentity's) matches it.
    private func matchesOtherEntities(_ plan: FetchPlan) throws -> Bool {
        var select = try SQLSelect(fetching: plan, .objects([FetchSelection.entity]), limited: false)
        let own = SQLExpression.parameter(.int(Int64(plan.layout.entityID)))
        select.conditions.append(.or([.compare(FetchSelection.entity, .lessThan, own), .compare(FetchSelection.entity, .greaterThan, own)]))
        select.orderBy = []
        select.limit = 1
        let (sql, arguments) = self.sql(select)
        var found = false
        try wrap { try read { db in try db.query(sql, arguments) { _ in found = true } } }
        return found
    }

    /// Reads every key of `sql` in `snapshot`, delivering those after the first `known` to `keys`, until
    /// the last or until nobody wants them.
    private static func deliverKeys(_ sql: String, _ arguments: [Value], after known: Int, from snapshot: SQLiteSnapshot, to keys: BatchKeys) {
        var seen = 0
        var failure: String?
        do {
            try snapshot.read { db in
                try db.query(sql, arguments) { row in
                    if keys.isAbandoned { throw CancellationError() }
                    seen += 1
                    if seen > known { keys.deliver(row.int64(0)) }
                }
            }
        } catch is CancellationError {
            failure = "nobody holds the fetch's objects"
        } catch {
            failure = "\(error)"
        }
        keys.end(failure: failure)
    }
}

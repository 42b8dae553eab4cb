import Foundation

extension SQLiteStore {
    /// The keys of a batched fetch in time proportional to its first batch: on the store's key reader
    /// (``SQLiteKeyReader``), on a connection of its reader pool, in one read transaction, the number of
    /// matches (`COUNT(*)`) and the first batch's keys (`LIMIT`, the fetch's order with `Z_PK` breaking
    /// ties), handed back at once; then every key in that order, delivered as it is read, the transaction
    /// ending with the last. So the keys are the ones a full fetch would have read when this one began,
    /// whatever is saved meanwhile. Should the reader fail, the keys still to come are read again when an
    /// object needs one (``BatchKeys``).
    ///
    /// The objects' entity comes back too: the fetched entity's. `nil` when the fetch is not one this
    /// serves (the caller reads every key first, as before): a match of a subentity (each object's class
    /// depends on its row; asked in the same transaction, through the table's `Z_ENT` index), a
    /// `fetchLimit` or `fetchOffset`, a scope reading a query generation (a pinned context), an in-memory
    /// store or a pool of one reader, or when the key reader or the pool's readers past the first are busy.
    func progressiveKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> BatchKeys? {
        guard plan.limit == 0, plan.offset == 0, plan.batchSize > 0, scope.snapshot == nil,
              readerConnectionCount > 1 else { return nil }
        // The keys alone (every match is of the plan's entity): an index matching the sort covers them.
        let (sql, arguments) = try selectSQL(plan, .objects([FetchSelection.key]), limited: false)
        let start = ReaderHandoff<BatchKeys?>()
        guard keyReader.start({ self.readKeys(plan, sql, arguments, start) }) else { return nil }
        return try start.wait()
    }

    /// The key reader's work for one fetch: the count and the first batch handed to `start`, then the
    /// rest delivered to the keys, all in one read transaction on a free reader of the pool.
    private func readKeys(_ plan: FetchPlan, _ sql: String, _ arguments: [Value], _ start: ReaderHandoff<BatchKeys?>) {
        let served: Void? = readIfIdle { db in
            var snapshot: SQLiteSnapshot!
            let keys: BatchKeys
            do {
                try wrap { snapshot = try SQLiteSnapshot(self, borrowing: db) }
                // The count and the first batch read in the reader's own transaction.
                let scope = StoreReadScope(snapshot: snapshot)
                if plan.layout.entityIDs.count > 1, try matchesOtherEntities(plan, scope) { return start.finish(nil) }
                let found = (count: try self.count(plan, in: scope),
                             first: try fetchKeys(plan.range(offset: 0, limit: plan.batchSize), in: scope).pks)
                keys = BatchKeys(count: found.count, first: found.first, rereading: rereader(sql, arguments))
                start.finish(keys)
                if found.first.count == found.count { return }
            } catch {
                return start.fail(error)
            }
            keyReaderGate?()
            Self.deliverKeys(sql, arguments, after: keys.deliveredCount, from: snapshot, to: keys)
        }
        if served == nil { start.finish(nil) }
    }

    /// Reads every key of `sql` again, now, on the store's readers: what a batched fetch falls back on
    /// when its key reader failed. It keeps no store alive.
    private func rereader(_ sql: String, _ arguments: [Value]) -> () throws -> [Int64] {
        { [weak self] in
            guard let self else {
                throw CoreDataError(NSPersistentStoreOperationError, "The store of the batched fetch was removed.")
            }
            var pks: [Int64] = []
            try wrap { try read { db in try db.query(sql, arguments) { pks.append($0.int64(0)) } } }
            return pks
        }
    }

    /// Whether a row of another entity than the plan's own (a subentity's) matches it, read in `scope`.
    private func matchesOtherEntities(_ plan: FetchPlan, _ scope: StoreReadScope) throws -> Bool {
        var select = try SQLSelect(fetching: plan, .objects([FetchSelection.entity]), limited: false)
        let own = SQLExpression.parameter(.int(Int64(plan.layout.entityID)))
        select.conditions.append(.or([.compare(FetchSelection.entity, .lessThan, own), .compare(FetchSelection.entity, .greaterThan, own)]))
        select.orderBy = []
        select.limit = 1
        let (sql, arguments) = self.sql(select)
        var found = false
        try wrap { try read(in: scope.snapshot) { db in try db.query(sql, arguments) { _ in found = true } } }
        return found
    }

    /// Reads every key of `sql` in `snapshot`, delivering those after the first `known` to `keys`, until
    /// the last or until nobody wants them.
    private static func deliverKeys(_ sql: String, _ arguments: [Value], after known: Int, from snapshot: SQLiteSnapshot, to keys: BatchKeys) {
        var seen = 0
        var failure: (any Error)?
        do {
            try snapshot.read { db in
                // A sorted query reads every row before its first: abandoning the fetch interrupts it, so the
                // reader is free for the next fetch at once.
                try keys.whileReading(interrupt: db.interrupter) {
                    try db.query(sql, arguments) { row in
                        if keys.isAbandoned { throw CancellationError() }
                        seen += 1
                        if seen > known { keys.deliver(row.int64(0)) }
                    }
                }
            }
        } catch _ where keys.isAbandoned {
            failure = CancellationError()
        } catch let error as SQLiteError {
            failure = error.coreDataError
        } catch {
            failure = error
        }
        keys.end(failure: failure)
    }
}

import Foundation

/// The coordinator's side of the store boundary: every read and write of a context goes through here, and
/// this is the one place that fills the row cache. Each read takes its context's ``StoreReadScope``
/// and hands it to the store; rows read in a query generation never enter the cache.
extension NSPersistentStoreCoordinator {
    /// The store of a key root (a hierarchy's root entity number, with the store's tag: `ObjectKey.keyRoot`).
    func backend(root: Int) throws -> any StoreBackend { try store(root: root).backend }

    /// The rows of a fetch. A fetch of values of at most ``RowCache/largestBatchCached`` rows feeds the
    /// row cache, so faults in other contexts then cost no query.
    func fetchRows(_ plan: FetchPlan, withValues: Bool, limited: Bool, in scope: StoreReadScope) throws -> [StoreRow] {
        guard plan.readsStore else { return [] }
        if let preloaded = plan.preloaded?.rows(withValues: withValues) { return preloaded }
        let store = try store(root: plan.keyRoot), backend = store.backend
        var rows = try backend.fetchRows(plan, withValues: withValues, limited: limited, in: scope)
        if store.keyTag != 0 { rows = rows.map { tagged($0, store.keyTag) } }
        if withValues, admitsToCache(rows.count, from: backend, scope) {
            let root = plan.keyRoot
            rowCache.put(rows.map { (.permanent(root: root, pk: $0.pk), $0) })
        }
        return rows
    }

    /// The keys a plan matches, in its order, with their entities' runs (a batched fetch's first query;
    /// no values, so the row cache is not involved).
    func fetchKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> (pks: [Int64], entityRuns: [EntityRun]) {
        guard plan.readsStore else { return ([], []) }
        if let preloaded = plan.preloaded?.keys { return preloaded }
        return try backend(root: plan.keyRoot).fetchKeys(plan, in: scope)
    }

    /// A batched fetch's keys, the first batch's now and the others as a reader delivers them
    /// (``ProgressiveKeyStore/progressiveKeys(_:in:)``); `nil` when the store or the plan is not one that serves.
    func progressiveKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> BatchKeys? {
        guard plan.readsStore, plan.preloaded == nil, let store = try backend(root: plan.keyRoot) as? ProgressiveKeyStore else { return nil }
        return try store.progressiveKeys(plan, in: scope)
    }

    /// A fetched results controller's counts and first batch now, its other rows later
    /// (``ProgressiveKeyStore/progressiveRows(_:groupedByFirstSort:in:)``); `nil` when the store or the
    /// plan is not one that serves. Only for a hierarchy one store holds.
    func progressiveRows(_ plan: FetchPlan, groupedByFirstSort: Bool, in scope: StoreReadScope) throws -> ProgressiveRows? {
        guard plan.readsStore, plan.preloaded == nil, plan.moreKeyRoots.isEmpty, try store(root: plan.keyRoot).keyTag == 0,
              let store = try backend(root: plan.keyRoot) as? ProgressiveKeyStore else { return nil }
        return try store.progressiveRows(plan, groupedByFirstSort: groupedByFirstSort, in: scope)
    }

    /// The rows of some keys: from the row cache where it has them (unless `bypassingCache`), the rest
    /// from the store (and into the cache). A missing key is a row that is gone.
    func loadRows(_ keys: [ObjectKey], bypassingCache: Bool = false, in scope: StoreReadScope) throws -> [ObjectKey: StoreRow] {
        var result: [ObjectKey: StoreRow] = [:]
        var byRoot: [Int: [Int64]] = [:]
        for case .permanent(let root, let pk) in keys { byRoot[root, default: []].append(pk) }
        for (root, pks) in byRoot {
            for row in try loadRows(root: root, pks: pks, bypassingCache: bypassingCache, in: scope) {
                if let row { result[.permanent(root: root, pk: row.pk)] = row }
            }
        }
        return result
    }

    /// The rows of some keys of one hierarchy, in the keys' order (`nil` for a row that is gone): from the
    /// row cache where it has them (unless `bypassingCache`), the rest from the store in one query (and
    /// into the cache, unless there are more than ``RowCache/largestBatchCached``).
    func loadRows(root: Int, pks: [Int64], bypassingCache: Bool = false, maxAge: TimeInterval? = nil, in scope: StoreReadScope) throws -> [StoreRow?] {
        var result = [StoreRow?](repeating: nil, count: pks.count)
        var missing: [Int] = []
        // A context pinned to a query generation reads its own snapshot, never the shared cache.
        let store = try store(root: root), backend = store.backend
        let bypassingCache = bypassingCache || maxAge == 0 || !cachesRows(of: backend, scope)
        if bypassingCache {
            missing = Array(pks.indices)
        } else {
            rowCache.rows(root: root, pks, into: &result, missing: &missing, maxAge: maxAge)
        }
        guard !missing.isEmpty else { return result }
        let all = missing.count == pks.count
        var loaded = try backend.loadRows(root: ObjectKey.entityRoot(root), pks: all ? pks : missing.map { pks[$0] }, in: scope)
        if store.keyTag != 0 { loaded = loaded.map { $0.map { tagged($0, store.keyTag) } } }
        if all, loaded.count == pks.count {
            result = loaded
        } else {
            for (i, row) in zip(missing, loaded) { result[i] = row }
        }
        let keys = missing.lazy.map { ObjectKey.permanent(root: root, pk: pks[$0]) }
        if admitsToCache(loaded.count, from: backend, scope) {
            rowCache.put(zip(keys, loaded).map { ($0, $1) })
        } else if cachesRows(of: backend, scope) {
            rowCache.remove(keys)
        }
        return result
    }

    /// `count(for:)` in the store.
    func countRows(_ plan: FetchPlan, in scope: StoreReadScope) throws -> Int {
        plan.readsStore ? try backend(root: plan.keyRoot).count(plan, in: scope) : 0
    }

    /// A dictionary-result fetch, row by row (the values buffer is reused for the next row).
    func fetchColumns(_ plan: FetchPlan, _ columns: DictionaryColumns, in scope: StoreReadScope, row: ([Value]) throws -> Void) throws {
        guard plan.readsStore else { return }
        try backend(root: plan.keyRoot).fetchColumns(plan, columns, in: scope, row: row)
    }


    /// Saves a changeset; once the transaction has committed the row cache follows what was written.
    /// `insertRoots`: the key roots of the stores the inserts go to (`nil`: each hierarchy's first store).
    func save(_ changes: StoreChanges, insertRoots: [Int]? = nil, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution]) throws -> StoreSaveOutcome {
        var (outcome, usesRowCache) = try writeToStores(changes, insertRoots: insertRoots, resolve: resolve)
        let insertRoots = insertRoots ?? defaultKeyRoots(changes.inserts)
        // Rows name objects inserted by this save by their new keys from now on.
        let inserted = zip(changes.inserts, outcome.insertedPrimaryKeys)
        let renamed = outcome.renaming
        if !renamed.isEmpty {
            for (key, row) in outcome.rows {
                guard let row, let values = row.values else { continue }
                outcome.rows[key] = StoreRow(pk: row.pk, entityID: row.entityID, version: row.version, values: renamed.apply(values, model(row.entityID)))
            }
        }
        guard usesRowCache else { return outcome }
        // Inserted rows are new to every context: a large import is not cached (nobody is about to fault
        // it, and no cached row can be stale).
        if changes.inserts.count <= RowCache.largestBatchCached {
            rowCache.put(zip(inserted, insertRoots).map { pair, root in
                let (insert, pk) = pair
                return (.permanent(root: root, pk: pk),
                 StoreRow(pk: pk, entityID: insert.layout.entityID, version: 1,
                          values: Self.cacheable(Self.withDerived(renamed.apply(insert.values, insert.layout),
                                                                  outcome.derivedRows[.permanent(root: root, pk: pk)],
                                                                  insert.layout),
                                                 insert.layout)))
            })
        }
        // Rows the save did not write whose derived values the store recomputed: the cache takes them as read.
        if !outcome.derivedRows.isEmpty {
            var written = Set(outcome.rows.keys)
            for (pk, root) in zip(outcome.insertedPrimaryKeys, insertRoots) { written.insert(.permanent(root: root, pk: pk)) }
            rowCache.put(outcome.derivedRows.filter { !written.contains($0.key) }.map { ($0.key, Optional($0.value)) })
        }
        rowCache.put(outcome.rows.map { key, row in
            (key, row.map { r in StoreRow(pk: r.pk, entityID: r.entityID, version: r.version, values: r.values.map { Self.cacheable($0, model(r.entityID)) }) })
        })
        return outcome
    }

    /// A row's values with the derived slots of `derived` (the row as the store has it after the save).
    static func withDerived(_ values: [Value], _ derived: StoreRow?, _ layout: EntityLayout) -> [Value] {
        guard let derived, let stored = derived.values, stored.count == values.count else { return values }
        var values = values
        for slot in layout.derivedSlots { values[slot] = stored[slot] }
        return values
    }

    /// A row as the cache keeps it: to-many relationships as faults, read again from the store by each
    /// context (a delete with no delete rule elsewhere does not update the rows it leaves behind).
    static func cacheable(_ values: [Value], _ layout: EntityLayout?) -> [Value] {
        guard let layout, layout.kinds.count == values.count else { return values }
        var values = values
        for slot in layout.relationshipSlots where layout.relationship(slot)!.isToMany { values[slot] = ToManyFault.value }
        return values
    }

    private func model(_ entityID: Int) -> EntityLayout? { managedObjectModel.entity(number: entityID)?.layout }

    /// The objects a to-many relationship holds for each of some owners (one query), in the store of
    /// tag `tag` (the owners' store).
    func loadRelationship(_ r: RelationshipLayout, owners: [Int64], tag: Int = 0, in scope: StoreReadScope) throws -> [Int64: [ObjectRef]] {
        let refs = try backend(root: ObjectKey.keyRoot(r.destinationRootID, tag: tag)).loadRelationship(r, owners: owners, in: scope)
        return tag == 0 ? refs : refs.mapValues { $0.map { Self.tagged($0, tag) } }
    }

    /// The objects a to-many relationship holds for one owner (a to-many fault firing: one query), in
    /// the store of tag `tag` (the owner's store).
    func loadRelationship(_ r: RelationshipLayout, owner: Int64, tag: Int = 0, in scope: StoreReadScope) throws -> [ObjectRef] {
        let refs = try backend(root: ObjectKey.keyRoot(r.destinationRootID, tag: tag)).loadRelationship(r, owner: owner, in: scope)
        return tag == 0 ? refs : refs.map { Self.tagged($0, tag) }
    }

    /// The members of a to-many relationship for some owners, with their rows (prefetching); at most
    /// ``RowCache/largestBatchCached`` rows feed the row cache, as a fetch's do.
    func prefetchToMany(_ r: RelationshipLayout, owners: [Int64], tag: Int = 0, in scope: StoreReadScope) throws -> [(owner: Int, row: StoreRow)] {
        let root = ObjectKey.keyRoot(r.destinationRootID, tag: tag)
        let backend = try backend(root: root)
        var members = try backend.prefetchToMany(r, owners: owners, in: scope)
        if tag != 0 { members = members.map { ($0.owner, tagged($0.row, tag)) } }
        if admitsToCache(members.count, from: backend, scope) {
            rowCache.put(members.map { (.permanent(root: root, pk: $0.row.pk), $0.row) })
        }
        return members
    }

    /// The save generation of the store that holds a hierarchy.
    func generation(root: Int) throws -> String { try backend(root: root).generation() }

    /// Whether rows read from `backend` in `scope` are ones the row cache keeps: the store's current rows (not a
    /// query generation's) of a store whose rows may be cached (an incremental store's are asked of the
    /// app's store class every time).
    private func cachesRows(of backend: any StoreBackend, _ scope: StoreReadScope) -> Bool {
        scope.snapshot == nil && backend.usesRowCache
    }

    /// The row cache's admission rule for `count` rows just read from `backend`: rows it keeps, and no
    /// more at once than ``RowCache/largestBatchCached`` (a larger read would push out what others use).
    private func admitsToCache(_ count: Int, from backend: any StoreBackend, _ scope: StoreReadScope) -> Bool {
        count <= RowCache.largestBatchCached && cachesRows(of: backend, scope)
    }

    /// Forgets a cached row (a refreshed object reads its row again).
    func forgetCachedRow(_ key: ObjectKey) { rowCache.remove(key) }
}

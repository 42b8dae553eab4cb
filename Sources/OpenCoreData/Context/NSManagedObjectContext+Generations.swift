import Foundation

extension NSManagedObjectContext {
    /// Mirrors `queryGenerationToken`: the generation the context reads, `nil` when it is not pinned.
    /// A context set to ``NSQueryGenerationToken/current`` takes its generation now (as its next read
    /// would), so that the token can pin other contexts to the same one.
    public var queryGenerationToken: NSQueryGenerationToken? {
        checkQueue("queryGenerationToken")
        _ = try? queryGenerationSnapshot()
        return queryGeneration
    }

    /// Mirrors `setQueryGenerationFrom(_:)`: pins the context to a generation of its store — another
    /// context's `queryGenerationToken`, or ``NSQueryGenerationToken/current`` (the store as it is at the
    /// context's next read) — or, with `nil`, unpins it. A pinned context's fetches, counts and faults
    /// read the store as it was at that generation, whatever other contexts or coordinators save since,
    /// until it saves, merges a save, is reset (each moves it to the current generation at its next
    /// read), or is set again. Objects it holds keep their values: refresh them to read the generation.
    ///
    /// Throws `NSPersistentStoreOperationError` for a token of another store. Core Data's pinned
    /// contexts need a SQLite store in WAL mode and revert to unpinned otherwise: a context of an
    /// in-memory store stays unpinned (``queryGenerationToken`` is `nil`). A child context reads
    /// through its parent, hence in the parent's generation.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        checkQueue("setQueryGenerationFrom(_:)")
        guard let generation else {
            queryGeneration = nil
            return
        }
        if let snapshot = generation.snapshot {
            guard let backend = persistentStoreCoordinator?.persistentStores.first?.backend, backend.identifier == snapshot.storeIdentifier else {
                throw CoreDataError(NSPersistentStoreOperationError, "setQueryGenerationFrom(_:): the token is a generation of store \(snapshot.storeIdentifier), not of this context's store")
            }
        } else if let backend = persistentStoreCoordinator?.persistentStores.first?.backend, (backend as? SnapshotStore)?.keepsSnapshots != true {
            // No write-ahead log (an in-memory store): the context stays unpinned, as in Core Data.
            queryGeneration = nil
            return
        }
        queryGeneration = generation
    }

    /// The generation a pinned context reads, taken now if it was set to `current`; `nil` when it is
    /// not pinned (or its store keeps no generations).
    func queryGenerationSnapshot() throws -> (any StoreSnapshot)? {
        guard let token = queryGeneration else { return nil }
        if let snapshot = token.snapshot { return snapshot }
        guard let store = persistentStoreCoordinator?.persistentStores.first?.backend as? SnapshotStore, let snapshot = try store.makeSnapshot() else {
            queryGeneration = nil
            return nil
        }
        queryGeneration = NSQueryGenerationToken(snapshot: snapshot)
        return snapshot
    }

    /// The scope of the context's store reads (``StoreReadScope``), made once per operation and handed
    /// to each read: its query generation when it is pinned (taken now if it was set to `current`), and
    /// the context itself when an incremental store is to be handed it. Neither: ``StoreReadScope/latest``,
    /// at the cost of two checks.
    @inline(__always) func storeReadScope() throws -> StoreReadScope {
        guard queryGeneration != nil || persistentStoreCoordinator?.hasIncrementalStore == true else { return .latest }
        return try pinnedReadScope()
    }

    /// ``storeReadScope()`` for a pinned context or an incremental store (out of line: the common path
    /// above stays two checks).
    @inline(never) private func pinnedReadScope() throws -> StoreReadScope {
        StoreReadScope(snapshot: try queryGenerationSnapshot(), context: currentStateReadScope.context)
    }

    /// The scope of a read of the store's current state for this context, whatever its generation: a
    /// merge or refresh, after which a pinned context moves to the current generation anyway.
    var currentStateReadScope: StoreReadScope {
        persistentStoreCoordinator?.hasIncrementalStore == true ? StoreReadScope(context: self) : .latest
    }

    /// A pinned context moves to the current generation (at its next read): after it saves, merges a
    /// save, or is reset.
    func advanceQueryGeneration() {
        if queryGeneration != nil { queryGeneration = .current }
    }
}

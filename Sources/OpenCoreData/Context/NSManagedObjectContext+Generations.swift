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

    /// Runs `body`, whose store reads go to the context's query generation when it is pinned; an
    /// incremental store's methods are handed this context (``IncrementalStoreScope``).
    @inline(__always) func readingStore<T>(_ body: () throws -> T) throws -> T {
        guard queryGeneration != nil || persistentStoreCoordinator?.hasIncrementalStore == true else { return try body() }
        return try readingStoreInScope(body)
    }

    /// ``readingStore(_:)`` for a pinned context or an incremental store (kept out of line: the common
    /// path above inlines `body` once).
    @inline(never) private func readingStoreInScope<T>(_ body: () throws -> T) throws -> T {
        if persistentStoreCoordinator?.hasIncrementalStore == true, IncrementalStoreScope.context !== self {
            return try IncrementalStoreScope.reading(self) { try readingGeneration(body) }
        }
        return try readingGeneration(body)
    }

    private func readingGeneration<T>(_ body: () throws -> T) throws -> T {
        guard queryGeneration != nil else { return try body() }
        return try QueryGenerationScope.reading(try queryGenerationSnapshot(), body)
    }

    /// A pinned context moves to the current generation (at its next read): after it saves, merges a
    /// save, or is reset.
    func advanceQueryGeneration() {
        if queryGeneration != nil { queryGeneration = .current }
    }
}

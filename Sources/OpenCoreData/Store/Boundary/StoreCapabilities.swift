import Foundation

// What a store may offer beyond ``StoreBackend``'s reads and saves. The coordinator, the requests and the
// contexts ask for a capability with `as?`; a store that lacks one gets the error Core Data gives for an
// unsupported request, or the documented fallback (a context stays unpinned, a batched fetch reads every
// key first).

/// Runs `NSBatchInsertRequest`, `NSBatchUpdateRequest` and `NSBatchDeleteRequest`, each in one
/// transaction of its own, with persistent history recorded when the store keeps it.
package protocol BatchRequestStore: StoreBackend {
    /// Whether the store records persistent history (a batch insert then keeps each row's given slots).
    var tracksHistory: Bool { get }
    /// Sets attributes of every row matching `plan`, raising each row's version; returns the rows written.
    func batchUpdate(_ plan: FetchPlan, _ assignments: [BatchAssignment], origin: HistoryOrigin) throws -> [BatchRow]
    /// Deletes the target rows, the model's delete rules applied at the row level.
    func batchDelete(_ target: BatchDeleteTarget, origin: HistoryOrigin) throws -> BatchDeleteOutcome
    /// Writes new rows of one entity (upserting under its uniqueness constraints); returns the row each
    /// object went to, in order, and the stored rows it updated.
    func batchInsert(_ layout: EntityLayout, _ rows: [BatchInsertRow], origin: HistoryOrigin) throws -> (written: [BatchRow], updated: [BatchRow])
}

/// Keeps persistent history (`NSPersistentHistoryTrackingKey`) in Core Data's layout and reads it back.
package protocol HistoryStore: StoreBackend {
    /// The transactions after (or before) a bound, in order; `NSPersistentHistoryTokenExpiredError` for a
    /// token whose following history was deleted.
    func historyTransactions(_ bound: HistoryBound) throws -> [HistoryTransactionRow]
    /// The changes of some transactions.
    func historyChanges(_ transactions: [Int64]) throws -> [HistoryChangeRow]
    /// Deletes the transactions a bound names; returns how many.
    func deleteHistory(_ bound: HistoryBound) throws -> Int
    /// The number of the last transaction, `nil` when the store keeps no history.
    func lastHistoryNumber() throws -> Int64?
}

/// Tells when another connection (another coordinator, process or machine) commits
/// (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
package protocol RemoteChangeStore: StoreBackend {
    /// Calls `changed`, on a queue of the store's, after others commit, until the watch is stopped or the
    /// store goes away, with the history transaction number of the commit when the store's notice
    /// carries it (`nil`: read the store's last one). Several commits close together may be told once.
    /// `nil`: no one else can commit to this store (it lives in this coordinator only).
    func watchRemoteChanges(_ changed: @escaping @Sendable (_ historyNumber: Int64?) -> Void) throws -> (any RemoteChangeWatch)?
}

/// A running ``RemoteChangeStore/watchRemoteChanges(_:)``.
package protocol RemoteChangeWatch: AnyObject, Sendable {
    func stop()
}

/// Keeps query generations (`NSQueryGenerationToken`): reads whose ``StoreReadScope`` holds one of the
/// store's snapshots see the store as it was when the snapshot was made.
package protocol SnapshotStore: StoreBackend {
    /// Whether the store can make generations now (a SQLite store in memory cannot).
    var keepsSnapshots: Bool { get }
    /// A new generation at the store's current state; `nil` when it keeps none.
    func makeSnapshot() throws -> (any StoreSnapshot)?
}

/// Reads a batched fetch's keys, and a fetched results controller's rows, progressively: the first batch
/// now, the rest as a reader delivers them.
package protocol ProgressiveKeyStore: StoreBackend {
    /// `nil` when the plan is not one the store serves this way (the caller reads every key first), as
    /// for a scope reading a query generation.
    func progressiveKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> BatchKeys?
    /// A fetched results controller's results progressively: the counts (per first sort value when
    /// `groupedByFirstSort`) and the first batch now, every match's key and sort values later
    /// (``ProgressiveRows``). `nil` when the plan is not one the store serves this way (the controller
    /// then fetches every object first): a sort the store cannot hand back as plain values, a scope
    /// reading a query generation, or no reader free.
    func progressiveRows(_ plan: FetchPlan, groupedByFirstSort: Bool, in scope: StoreReadScope) throws -> ProgressiveRows?
}

/// Migrates in place and may defer the cleanup (`NSPersistentStoreDeferredLightweightMigrationOptionKey`).
package protocol DeferredMigrationStore: StoreBackend {
    /// Runs the deferred cleanup: all of it, or what fits now; whether something was dropped and whether
    /// more is pending.
    func finishDeferredMigration(all: Bool) throws -> (dropped: Bool, pending: Bool)
}

/// Keeps the store's metadata itself (`NSStoreUUIDKey`, the model's version hashes, the app's keys).
package protocol MetadataStore: StoreBackend {
    /// The metadata read when the store opened.
    var metadata: [String: Any] { get }
    /// Metadata set on the store, written by its next save (``NSPersistentStore/metadata``).
    func setPendingMetadata(_ metadata: [String: Any])
}

/// Captures its whole state and puts it back: the in-memory mirror of an app's `NSAtomicStore`, undone
/// when the app's store fails to save.
package protocol ImageStore: StoreBackend {
    func image() throws -> Data
    func restore(image: Data) throws
}

/// Copies itself into a new store of its kind at a URL (`migratePersistentStore(_:to:options:type:)`).
package protocol CopyableStore: StoreBackend {
    /// The store type its copy is.
    var copyType: String { get }
    /// Writes the store's whole contents to a new store at `url` (the file must not exist).
    func copy(to url: URL) throws
}

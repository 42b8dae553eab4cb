import Foundation

// What the SQLite store offers beyond ``StoreBackend`` (Store/Boundary/StoreCapabilities.swift); each
// capability's methods live in the file named for it (Batch/, History/, SQLiteSnapshot.swift, …).

extension SQLiteStore: BatchRequestStore, HistoryStore, ProgressiveKeyStore, DeferredMigrationStore, MetadataStore, ImageStore {
    /// A save is one SQLite transaction.
    var isTransactional: Bool { true }

    func setPendingMetadata(_ metadata: [String: Any]) {
        pendingMetadata.withLock { $0 = metadata }
    }

    /// The database as one image (`sqlite3_serialize`), taken on the writer.
    func image() throws -> Data { try write { try $0.image() } }

    func restore(image: Data) throws { try write { try $0.restoreImage(image) } }
}

import Foundation

/// A query generation of a PostgreSQL store: a connection of its own holding a
/// `REPEATABLE READ READ ONLY` transaction open, whose snapshot is taken by its first statement; reads in
/// it see the database as it was then, whatever others commit, until the generation is released.
final class PostgresSnapshot: StoreSnapshot, @unchecked Sendable {
    let store: PostgresStore
    var storeIdentifier: String { store.identifier }
    let number: Int
    private let session: any PostgresDedicatedSession
    private let lock = NSLock()

    init(_ store: PostgresStore) throws {
        self.store = store
        let session = try store.wire.dedicatedSession()
        do {
            _ = try session.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [])
            _ = try session.run("SELECT 1", [])
        } catch {
            session.close()
            throw error
        }
        self.session = session
        number = LiveSnapshots.nextNumber()
        LiveSnapshots.add(self)
    }

    deinit {
        _ = try? session.run("ROLLBACK", [])
        session.close()
        LiveSnapshots.remove(storeIdentifier, number)
    }

    /// Runs `body` on the generation's connection (one read at a time).
    func read<T>(_ body: (any PostgresSession) throws -> T) rethrows -> T {
        try lock.withLock { try body(session) }
    }
}

extension PostgresStore: SnapshotStore {
    var keepsSnapshots: Bool { true }

    func makeSnapshot() throws -> (any StoreSnapshot)? {
        try wrap { try PostgresSnapshot(self) }
    }
}

extension PostgresStore: MetadataStore {
    func setPendingMetadata(_ metadata: [String: Any]) {
        pendingMetadata.withLock { $0 = metadata }
    }
}

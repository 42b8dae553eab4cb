import CSQLite
import Foundation

/// A query generation of a SQLite store: a connection of its own holding a read transaction open, so
/// that everything read through it sees the database as it was when the transaction began, whatever is
/// committed since (WAL mode: the writer appends, the snapshot keeps its read mark). The system SQLite
/// is built without `SQLITE_ENABLE_SNAPSHOT`, so a snapshot cannot be reopened on another connection:
/// the transaction lives as long as this object, and ends (the connection closes) when no token or
/// context refers to it any more.
final class SQLiteSnapshot: StoreSnapshot, @unchecked Sendable {
    let store: SQLiteStore
    var storeIdentifier: String { store.identifier }
    /// This generation's number among the process's (for encoding its token).
    let number: Int
    private let connection: SQLiteConnection
    private let lock = NSLock()

    init(_ store: SQLiteStore, path: String) throws {
        self.store = store
        // Logged and recorded as the store's own connections are (`recordingSQL`, the SQL debug log).
        let connection = try SQLiteConnection(path: path, readOnly: true, logger: store.connection.logger)
        connection.recorder = store.currentRecorder
        connection.tally = store.snapshotQueries
        try connection.execute("BEGIN DEFERRED")
        // A read starts the transaction's snapshot: from here on, commits of others are not seen.
        try connection.execute("SELECT count(*) FROM sqlite_master")
        self.connection = connection
        self.number = LiveSnapshots.nextNumber()
        LiveSnapshots.add(self)
    }

    /// A read transaction on a connection of the store's reader pool that the caller holds for as long
    /// as this object lives (a batched fetch's key reader): not a query generation (no token finds it).
    init(_ store: SQLiteStore, borrowing connection: SQLiteConnection) throws {
        self.store = store
        try connection.execute("BEGIN DEFERRED")
        do { try connection.execute("SELECT count(*) FROM sqlite_master") } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        self.connection = connection
        self.number = 0
    }

    deinit {
        try? connection.execute("ROLLBACK")
        if number != 0 { LiveSnapshots.remove(storeIdentifier, number) }
    }

    /// Runs `body` on the snapshot's connection.
    func read<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        try lock.withLock { try body(connection) }
    }
}

extension SQLiteStore: SnapshotStore {
    /// Whether the store keeps query generations: a file store in WAL mode (not an in-memory store).
    var keepsSnapshots: Bool { readerPath != nil }

    func makeSnapshot() throws -> (any StoreSnapshot)? { try makeSQLiteSnapshot() }

    /// A new query generation of the store at its current state; `nil` for an in-memory store, which
    /// has no write-ahead log to read an older state from (Core Data's contexts then stay unpinned).
    func makeSQLiteSnapshot() throws -> SQLiteSnapshot? {
        guard let path = readerPath else { return nil }
        var snapshot: SQLiteSnapshot?
        try wrap { snapshot = try SQLiteSnapshot(self, path: path) }
        return snapshot
    }
}

import CSQLite
import Foundation
import Synchronization

/// A query generation of a SQLite store: a connection of its own holding a read transaction open, so
/// that everything read through it sees the database as it was when the transaction began, whatever is
/// committed since (WAL mode: the writer appends, the snapshot keeps its read mark). The system SQLite
/// is built without `SQLITE_ENABLE_SNAPSHOT`, so a snapshot cannot be reopened on another connection:
/// the transaction lives as long as this object, and ends (the connection closes) when no token or
/// context refers to it any more.
final class SQLiteSnapshot: @unchecked Sendable {
    let store: SQLiteStore
    /// This generation's number among the process's (for encoding its token).
    let number: Int
    private let connection: SQLiteConnection
    private let lock = NSLock()

    private static let counter = Atomic<Int>(0)
    /// The live generations, by store identifier and number (for decoding tokens).
    private static let live = Mutex<[String: [Int: Weak]]>([:])
    private struct Weak { weak var snapshot: SQLiteSnapshot? }

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
        self.number = Self.counter.add(1, ordering: .relaxed).newValue
        Self.live.withLock { $0[store.identifier, default: [:]][number] = Weak(snapshot: self) }
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
        if number != 0 { Self.live.withLock { _ = $0[store.identifier]?.removeValue(forKey: number) } }
    }

    /// Runs `body` on the snapshot's connection.
    func read<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        try lock.withLock { try body(connection) }
    }

    /// The live generation of that store and number, if it still exists.
    static func find(store identifier: String, number: Int) -> SQLiteSnapshot? {
        live.withLock { $0[identifier]?[number]?.snapshot }
    }
}

/// The query generation the current thread's store reads go to (set by a pinned context around its
/// reads: ``NSManagedObjectContext/readingStore(_:)``); `nil`: the store's current state.
enum QueryGenerationScope {
    @TaskLocal static var snapshot: SQLiteSnapshot?

    /// Runs `body` with its store reads in `snapshot` (`nil`: as they are).
    static func reading<T>(_ snapshot: SQLiteSnapshot?, _ body: () throws -> T) rethrows -> T {
        guard let snapshot, Self.snapshot !== snapshot else { return try body() }
        return try $snapshot.withValue(snapshot, operation: body)
    }
}

extension SQLiteStore {
    /// A new query generation of the store at its current state; `nil` for an in-memory store, which
    /// has no write-ahead log to read an older state from (Core Data's contexts then stay unpinned).
    func makeSnapshot() throws -> SQLiteSnapshot? {
        guard let path = readerPath else { return nil }
        var snapshot: SQLiteSnapshot?
        try wrap { snapshot = try SQLiteSnapshot(self, path: path) }
        return snapshot
    }
}

import CSQLite
import Foundation
import Synchronization
import Logging

/// A SQLite database connection: prepared statements cached by SQL text, transactions, and the
/// functions and collations that make SQL agree with in-memory predicate evaluation.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    private var cache: [String: SQLiteStatement] = [:]
    /// Statements a caller names by a key of its own (``newStatementKey()``) instead of their text.
    private var keyed: [Int: SQLiteStatement] = [:]
    /// Statements stepped so far (each execution of a query counts once); tests use it to count queries.
    private(set) var queryCount = 0
    /// Counts this connection's queries too, for a store that outlives it (a query generation's
    /// connection, a batched fetch's key reader: ``SQLiteStore/queryCount``).
    var tally: QueryTally?
    let logger: Logger?
    /// When set, every query's SQL text is appended to it (tests assert the statements a call runs).
    var recorder: SQLRecorder?

    /// Opens (creating it unless `readOnly`) the database at `path`, a file path or a `file:` URI; or at
    /// `location` when given (a `file:` URI), `path` then naming it in messages.
    init(path: String, location: String? = nil, readOnly: Bool = false, logger: Logger? = nil) throws {
        var db: OpaquePointer?
        let opened = location ?? path
        let mode = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = mode | SQLITE_OPEN_NOMUTEX | (opened.hasPrefix("file:") ? SQLITE_OPEN_URI : 0)
        let rc = sqlite3_open_v2(opened, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let extended = db.map { sqlite3_extended_errcode($0) } ?? rc
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, extendedCode: extended, message: "cannot open \(path): \(message)", sql: nil)
        }
        self.handle = db
        self.path = path
        self.logger = logger
        sqlite3_busy_timeout(db, 10_000)
        SQLiteFunctions.register(on: db)
    }

    /// A `file:` URI for `path` with a query (`immutable=1`, `vfs=memdb`), its path percent-encoded.
    static func uri(_ path: String, query: String) -> String {
        "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?" + query
    }

    /// Stops the statement the connection runs (`sqlite3_interrupt`, callable from any thread): it fails
    /// with `SQLITE_INTERRUPT`.
    var interrupter: @Sendable () -> Void {
        let handle = UncheckedHandle(pointer: handle)
        return { sqlite3_interrupt(handle.pointer) }
    }

    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    func setBusyTimeout(_ seconds: TimeInterval) {
        sqlite3_busy_timeout(handle, Int32(clamping: Int((seconds * 1000).rounded())))
    }

    deinit {
        cache.removeAll()
        keyed.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without arguments (schema, pragmas, transaction control); several statements allowed.
    func execute(_ sql: String) throws {
        logger?.debug("CoreData: sql: \(sql)")
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw SQLiteError(code: rc, extendedCode: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reused across calls.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = cache[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else {
            throw error(rc, sql: sql)
        }
        let statement = SQLiteStatement(raw, connection: self, sql: sql)
        if cache.count > 256 { cache.removeAll() }
        cache[sql] = statement
        return statement
    }

    /// A key no other statement of the process has, for ``query(_:key:_:row:)``.
    static func newStatementKey() -> Int { statementKeys.add(1, ordering: .relaxed).newValue }

    /// A prepared statement for `sql`, found by `key` (which names that text for good). Only
    /// ``query(_:key:_:row:)`` runs it, and resets it after each use.
    private func statement(_ sql: String, key: Int) throws -> SQLiteStatement {
        if let cached = keyed[key] { return cached }
        let statement = try self.statement(sql)
        keyed[key] = statement
        return statement
    }

    /// Runs a query and calls `row` for each result row. With a `key` (``newStatementKey()``) the
    /// prepared statement is found by it rather than by its text.
    func query(_ sql: String, key: Int? = nil, _ arguments: [Value] = [], row: (SQLiteStatement) throws -> Void) throws {
        let statement = try key.map { try self.statement(sql, key: $0) } ?? self.statement(sql)
        try statement.bind(arguments)
        queryCount += 1
        tally?.add()
        recorder?.append(sql)
        let start = logger == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        logger?.debug("CoreData: sql: \(sql)\(arguments.isEmpty ? "" : " -- \(SQLiteError.redacted(arguments))")")
        var rows = 0
        defer { statement.reset() }
        try statement.steps(with: arguments) {
            while try statement.step() {
                rows += 1
                try row(statement)
            }
        }
        if let logger {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            logger.debug("CoreData: annotation: sql connection fetch time: \(String(format: "%.4f", seconds))s")
            logger.debug("CoreData: annotation: total fetch execution time: \(String(format: "%.4f", seconds))s for \(rows) rows.")
        }
    }

    /// Runs a statement that returns no rows; returns the number of rows changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [Value] = []) throws -> Int {
        try run(statement(sql), arguments)
    }

    /// Runs a statement from ``statement(_:)`` again with new arguments, without looking it up by its
    /// text (a save's inserts reuse one per entity); returns the number of rows changed.
    @discardableResult
    func run(_ statement: SQLiteStatement, _ arguments: [Value]) throws -> Int {
        try statement.bind(arguments)
        queryCount += 1
        logger?.debug("CoreData: sql: \(statement.sql)\(arguments.isEmpty ? "" : " -- \(SQLiteError.redacted(arguments))")")
        defer { statement.reset() }
        try statement.steps(with: arguments) { while try statement.step() {} }
        return Int(sqlite3_changes(handle))
    }

    /// Runs a statement whose placeholders are bound already (``StatementBinder``), without clearing them
    /// after (each run binds them all again); `arguments` are what was bound, for the log and an error.
    /// Returns the number of rows changed.
    @discardableResult
    func runBound(_ statement: SQLiteStatement, arguments: @autoclosure () -> [Value]) throws -> Int {
        queryCount += 1
        logger?.debug("CoreData: sql: \(statement.sql) -- \(SQLiteError.redacted(arguments()))")
        defer { sqlite3_reset(statement.raw) }
        do {
            while try statement.step() {}
        } catch var error as SQLiteError where error.sql == statement.sql && error.arguments.isEmpty {
            error.arguments = arguments()
            throw error
        }
        return Int(sqlite3_changes(handle))
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE` … `COMMIT`), rolling back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// The SQL text of the queries run on the connections it is set on, in the order they ran.
/// A count of queries shared by connections on several threads.
final class QueryTally: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

final class SQLRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []
    func append(_ sql: String) { lock.withLock { statements.append(sql) } }
    var recorded: [String] { lock.withLock { statements } }
}

private let statementKeys = Atomic<Int>(0)

/// A connection's handle handed to another thread, for `sqlite3_interrupt` only.
private struct UncheckedHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

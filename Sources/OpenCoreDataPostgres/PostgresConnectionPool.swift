import Foundation
import Logging
import NIOCore
import NIOPosix
import OpenCoreData
import PostgresNIO

/// The event loop group every PostgreSQL store of the process drives postgres-nio on: its own threads,
/// never the callers' (which block on a future until the server answers).
let postgresEventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

/// A bounded pool of connections to one database (``PostgresWire``): a connection is made when one is
/// asked for and none is idle, up to the URL's `pool` size; beyond it callers wait. A connection that
/// failed is closed rather than returned, and an idle one the server closed (a restart, a network drop)
/// is dropped when next asked for: after a restart the pool connects again, the statements that were
/// running when it went down having thrown.
final class PostgresConnectionPool: PostgresWire, @unchecked Sendable {
    private let url: PostgresStoreURL
    private let condition = NSCondition()
    private var idle: [WatchedConnection] = []
    private var opened = 0
    private var closed = false
    private var nextID = 0
    private let logger = Logger(label: "OpenCoreDataPostgres")

    init(url: URL) throws {
        self.url = try PostgresStoreURL(url)
    }

    func withSession<T>(_ body: (any PostgresSession) throws -> T) throws -> T {
        let session = PostgresConnectionSession(try checkOut(), logger: logger)
        defer { checkIn(session.watched, broken: session.broken) }
        return try body(session)
    }

    private func checkOut() throws -> WatchedConnection {
        condition.lock()
        while idle.isEmpty && opened >= url.poolSize && !closed { condition.wait() }
        if closed {
            condition.unlock()
            throw PostgresWireError(sqlState: nil, message: "the store was removed: its connections are closed", sql: nil)
        }
        // An idle connection the server closed meanwhile (it restarted, the network dropped) is dropped,
        // not handed out: the caller gets a new one.
        while let connection = idle.popLast() {
            if connection.isClosed {
                opened -= 1
                continue
            }
            condition.unlock()
            return connection
        }
        opened += 1
        nextID += 1
        let id = nextID
        condition.unlock()
        do {
            return WatchedConnection(try PostgresConnection.connect(on: postgresEventLoops.next(), configuration: url.configuration, id: id, logger: logger).wait())
        } catch {
            condition.withLock { opened -= 1 }
            condition.signal()
            throw PostgresConnectionSession.wireError(error, sql: nil)
        }
    }

    private func checkIn(_ watched: WatchedConnection, broken: Bool) {
        condition.lock()
        if broken || closed || watched.isClosed {
            opened -= 1
            condition.unlock()
            watched.closeInBackground()
        } else {
            idle.append(watched)
            condition.unlock()
        }
        condition.signal()
    }

    deinit { close() }

    func dedicatedSession() throws -> any PostgresDedicatedSession {
        try PostgresDedicatedConnection(url: url, logger: logger)
    }

    func listen(_ channel: String, _ notified: @escaping @Sendable ([String]) -> Void,
                reconnected: @escaping @Sendable () -> Void) throws -> any PostgresListening {
        try PostgresListener(url: url, channel: channel, notified: notified, reconnected: reconnected)
    }

    func close() {
        let connections = condition.withLock { () -> [WatchedConnection] in
            closed = true
            defer { idle = [] }
            return idle
        }
        condition.broadcast()
        for watched in connections { try? (watched.connection.close() as EventLoopFuture<Void>).wait() }
    }
}

/// One checked-out connection: statements run on it one at a time, the caller waiting for each.
final class PostgresConnectionSession: PostgresSession {
    let watched: WatchedConnection
    var connection: PostgresConnection { watched.connection }
    private let logger: Logger
    /// Whether the connection failed (not the statement: no SQLSTATE, a connection exception, the server
    /// shutting down): it is closed instead of going back to the pool.
    private(set) var broken = false

    init(_ watched: WatchedConnection, logger: Logger) {
        self.watched = watched
        self.logger = logger
    }

    func run(_ sql: String, _ binds: [PostgresDatum]) throws -> PostgresResult {
        var bindings = PostgresBindings(capacity: binds.count)
        for datum in binds {
            switch datum {
            case .null: bindings.appendNull()
            case .int(let i): bindings.append(i)
            case .double(let d): bindings.append(d)
            case .text(let s): bindings.append(s)
            case .bytes(let d): try bindings.append(d)
            case .bool(let b): bindings.append(b)
            case .intArray(let a): bindings.append(a)
            }
        }
        do {
            let result = try watched.answer(connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)).wait()
            return PostgresResult(rows: try result.rows.map { row in try row.map(Self.datum) }, affected: result.metadata.rows ?? 0)
        } catch {
            let failure = Self.wireError(error, sql: sql)
            if failure.isConnectionFailure || connection.isClosed { broken = true }
            throw failure
        }
    }

    /// A cell as the store's wire value, by the server's type for it.
    static func datum(_ cell: PostgresCell) throws -> PostgresDatum {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid: return .int(try cell.decode(Int64.self))
        case .float4, .float8: return .double(try cell.decode(Double.self))
        case .numeric:
            let decimal = try cell.decode(Decimal.self)
            if let integer = Int64(exactly: NSDecimalNumber(decimal: decimal).doubleValue), Decimal(integer) == decimal { return .int(integer) }
            return .double(NSDecimalNumber(decimal: decimal).doubleValue)
        case .bytea: return .bytes(try cell.decode(Data.self))
        case .bool: return .bool(try cell.decode(Bool.self))
        case .int8Array: return .intArray(try cell.decode([Int64].self))
        default: return .text(try cell.decode(String.self))
        }
    }

    /// postgres-nio's error as the wire's: the server's SQLSTATE and message, or the connection's failure.
    static func wireError(_ error: any Error, sql: String?) -> PostgresWireError {
        if let error = error as? PSQLError {
            if let info = error.serverInfo {
                return PostgresWireError(sqlState: info[.sqlState], message: info[.message] ?? "\(error.code)", sql: sql)
            }
            return PostgresWireError(sqlState: nil, message: "\(error.code)" + (error.underlying.map { ": \($0)" } ?? ""), sql: sql)
        }
        return PostgresWireError(sqlState: nil, message: "\(error)", sql: sql)
    }
}

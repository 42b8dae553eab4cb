import Foundation

/// A value sent to PostgreSQL as a bound parameter, or read back from a row: the few wire types the
/// PostgreSQL store's layout uses (docs/PostgreSQL.md, "Types"). The store turns ``Value``s into these
/// and back; the driver (OpenCoreDataPostgres) turns these into postgres-nio's bindings and cells.
package enum PostgresDatum: Sendable, Equatable {
    case null
    /// `bigint` (also booleans, entity numbers, keys).
    case int(Int64)
    /// `double precision` (also dates, as seconds since 2001-01-01, and decimals).
    case double(Double)
    /// `text`.
    case text(String)
    /// `bytea`.
    case bytes(Data)
    /// `boolean` (results of conditions selected as values).
    case bool(Bool)
    /// `bigint[]`: a list of keys bound as one parameter (`Z_PK = ANY($1)`).
    case intArray([Int64])
}

/// What one statement gave back: its rows (each cell a ``PostgresDatum``) and the number of rows it
/// inserted, updated or deleted.
package struct PostgresResult: Sendable {
    package var rows: [[PostgresDatum]]
    package var affected: Int

    package init(rows: [[PostgresDatum]], affected: Int) {
        self.rows = rows
        self.affected = affected
    }
}

/// One connection to the server, taken from the pool for the length of a read or a transaction and used
/// by one thread at a time. Every value is a bound parameter (`$1`, `$2`, …), never text in the SQL.
package protocol PostgresSession: AnyObject {
    /// Runs one statement and waits for all of its rows.
    func run(_ sql: String, _ binds: [PostgresDatum]) throws -> PostgresResult
}

/// The PostgreSQL store's way to its server: a bounded pool of connections to one database, driven on
/// an event loop group of the driver's own (the callers block; their threads never run the driver). OpenCoreDataPostgres implements it with postgres-nio.
package protocol PostgresWire: AnyObject, Sendable {
    /// Runs `body` with a connection of the pool, waiting for one while all are in use.
    func withSession<T>(_ body: (any PostgresSession) throws -> T) throws -> T
    /// A connection of its own, outside the pool's bound, until it is closed: a query generation's
    /// open transaction.
    func dedicatedSession() throws -> any PostgresDedicatedSession
    /// Calls `notified` with the payloads of the notifications on `channel` (`LISTEN`, on a connection of
    /// its own), in the order they came — all that came while the last call ran in one call — until the
    /// listening stops; after that connection was lost and made again (a network drop, a server restart),
    /// calls `reconnected`: notifications sent in between were missed.
    func listen(_ channel: String, _ notified: @escaping @Sendable ([String]) -> Void,
                reconnected: @escaping @Sendable () -> Void) throws -> any PostgresListening
    /// Closes every connection (the store is removed).
    func close()
}

/// A connection outside the pool (``PostgresWire/dedicatedSession()``), closed by ``close()``.
package protocol PostgresDedicatedSession: PostgresSession, Sendable {
    func close()
}

/// A running ``PostgresWire/listen(_:_:reconnected:)``.
package protocol PostgresListening: AnyObject, Sendable {
    /// Stops listening and closes the listening connection.
    func stop()
}

/// A failure the server or the connection reported: its SQLSTATE (`23505`, …; `nil` when the connection
/// failed before the server answered) and message, with the statement that failed.
package struct PostgresWireError: StoreFailure, CustomStringConvertible {
    package let sqlState: String?
    package let message: String
    package let sql: String?

    package init(sqlState: String?, message: String, sql: String?) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// SQLSTATE classes mapped to the store-neutral kinds: `23505` unique violation, `40001`/`40P01`
    /// serialization failure and deadlock (retry), `25006` read-only transaction, `3D000`/`3F000` no such
    /// database or schema, no code at all: the connection.
    package var kind: StoreFailureKind {
        switch sqlState {
        case "23505": return .uniqueViolation
        case "40001", "40P01", "55P03": return .busy
        case "25006": return .readOnly
        case "3D000", "3F000": return .missing
        default: return .other
        }
    }

    /// Whether the connection failed rather than the statement: no SQLSTATE (the server never answered),
    /// class `08` (connection exception) or `57P01`–`57P03` (the server shutting down or starting).
    package var isConnectionFailure: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    package var description: String {
        "PostgreSQL error" + (sqlState.map { " \($0)" } ?? "") + ": \(message)" + (sql.map { " (\($0))" } ?? "")
    }
}

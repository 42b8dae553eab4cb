import Foundation
import Logging

/// The PostgreSQL store: Core Data's layout (one table per entity hierarchy, `Z_PK`/`Z_ENT`/`Z_OPT`,
/// join tables, `Z_PRIMARYKEY`, `Z_METADATA`) in one schema of a PostgreSQL database, read and written
/// through the same query values as the SQLite store, printed by ``PostgresPrinter``.
///
/// Concurrency: every read takes a connection of the wire's bounded pool for one statement (each sees
/// the last committed state: PostgreSQL's `READ COMMITTED`); a save takes one for its transaction.
/// Several processes and machines share the database: keys are reserved under `Z_PRIMARYKEY`'s row
/// lock, and optimistic locking compares `Z_OPT` inside the saving transaction.
final class PostgresStore: StoreBackend, @unchecked Sendable {
    let wire: any PostgresWire
    let model: NSManagedObjectModel
    /// The entities this store keeps: its configuration's hierarchies (every entity without one).
    let entities: [NSEntityDescription]
    let tables: [Int: TableInfo]
    let joinTables: [JoinTableInfo]
    let identifier: String
    let isReadOnly: Bool
    /// The store's metadata as it opened.
    let metadata: [String: Any]
    /// Metadata an app set, written by the next save's transaction.
    let pendingMetadata = LockedValue<[String: Any]?>(nil)
    /// The store's URL without its password (errors name it).
    let location: String
    /// How to read a row of each entity, by entity number.
    let rowShapes: [RowShape?]
    /// Whether the model has uniqueness constraints: a save then inserts rows last.
    let hasUniqueIndexes: Bool
    /// `NSPersistentHistoryTrackingKey`: saves record persistent history.
    let tracksHistory: Bool
    /// How many `ZTOMBSTONE<k>` columns `ACHANGE` has.
    let historyTombstoneWidth: Int
    private let queries = QueryTally()
    /// The PostgreSQL schema holding the store's tables.
    let schema: String
    /// This store object's name in the change notices its saves send (``changeChannel``), so that its
    /// own are told apart from other coordinators', processes' and machines'.
    let noticeSender = UUID().uuidString
    /// History strings' keys read from `ATRANSACTIONSTRING` (``recordHistory(_:origin:_:)``).
    let historyStrings = LockedValue<[String: Int64]>([:])

    init(url: URL, model: NSManagedObjectModel, options: StoreOpenOptions, wire: any PostgresWire) throws {
        self.wire = wire
        self.model = model
        self.isReadOnly = options.readOnly
        self.tracksHistory = options.tracksHistory && !options.readOnly
        self.location = Self.location(of: url)
        self.schema = try PostgresStoreKind.schema(of: url)
        let entities = try model.storedEntities(forConfigurationName: options.configuration)
        self.entities = entities
        let tables = TableInfo.stored(entities, of: model)
        self.tables = tables
        self.joinTables = JoinTableInfo.all(of: entities)
        self.rowShapes = RowShape.all(model, tables)
        self.hasUniqueIndexes = !ModelIndexes.unique(model, within: tables).isEmpty
        guard try DerivedColumn.all(model, tables).isEmpty else {
            throw CoreDataError(NSPersistentStoreOpenError, "The PostgreSQL store at \(location) cannot keep derived attributes yet (docs/PostgreSQL.md); nothing was written.")
        }
        do {
            (identifier, metadata, historyTombstoneWidth) = try Self.open(wire, schema: schema, model: model, tables: tables,
                                                   entities: entities, options: options, location: location)
        } catch {
            wire.close()
            throw error
        }
    }

    deinit { wire.close() }

    /// The URL as errors show it: without a password.
    static func location(of url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        if parts.password != nil { parts.password = "•••" }
        return parts.string ?? url.absoluteString
    }

    var queryCount: Int { queries.value }

    var isTransactional: Bool { true }

    func table(for layout: EntityLayout) -> TableInfo { tables[layout.rootEntityID]! }

    // MARK: - Running statements

    /// Runs one statement on a connection of the pool.
    func run(_ sql: String, _ values: [Value] = []) throws -> PostgresResult {
        try wrap { try wire.withSession { try run(sql, values, on: $0) } }
    }

    /// Runs one statement of a read in `scope`: in the scope's query generation when it is one of this
    /// store's (``PostgresSnapshot``), else on a connection of the pool (the last committed state).
    func read(_ sql: String, _ values: [Value], in scope: StoreReadScope) throws -> PostgresResult {
        guard let snapshot = scope.snapshot as? PostgresSnapshot, snapshot.store === self else { return try run(sql, values) }
        return try wrap { try snapshot.read { try run(sql, values, on: $0) } }
    }

    /// Runs one statement on `session` (inside a transaction), counting it.
    func run(_ sql: String, _ values: [Value] = [], on session: any PostgresSession) throws -> PostgresResult {
        queries.add()
        return try session.run(sql, try [PostgresDatum](binding: values))
    }

    /// The text of a statement and its bound values.
    func text(_ select: SQLSelect) throws -> (String, [Value]) {
        var context = SQLGenerationContext()
        do {
            let text = try PostgresPrinter.sql(select, &context)
            return (text, context.arguments)
        } catch let unsupported as PostgresPrinter.Unsupported {
            throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError,
                                "The PostgreSQL store cannot evaluate \(unsupported.what) in the database as it is evaluated in memory; fetch without it and filter or sort the objects in memory (docs/PostgreSQL.md, \"What differs\").")
        }
    }

    /// Runs a write's statement on `session`; returns the rows it changed.
    @discardableResult
    func run(_ write: SQLWrite, on session: any PostgresSession) throws -> Int {
        var context = SQLGenerationContext()
        let sql = try PostgresPrinter.sql(write, &context)
        return try run(sql, context.arguments, on: session).affected
    }

    /// Runs `body` in one transaction on one connection: committed when it returns, rolled back when it
    /// throws (and the error rethrown). When the connection fails during `COMMIT`, the error says the
    /// transaction may have committed: the server may have committed it before the answer was lost.
    func transaction<T>(_ body: (any PostgresSession) throws -> T) throws -> T {
        try wrap {
            try wire.withSession { session in
                _ = try session.run("BEGIN", [])
                do {
                    let result = try body(session)
                    do {
                        _ = try session.run("COMMIT", [])
                    } catch let failure as PostgresWireError where failure.isConnectionFailure {
                        throw PostgresWireError(sqlState: failure.sqlState, message: failure.message + " — the connection failed during COMMIT: the transaction may have committed (docs/PostgreSQL.md, \"Consistency under failure\")", sql: failure.sql)
                    }
                    return result
                } catch {
                    _ = try? session.run("ROLLBACK", [])
                    throw error
                }
            }
        }
    }

    /// Turns the wire's failures into Core Data errors naming the store, the failure under
    /// `NSUnderlyingErrorKey`.
    func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresWireError {
            throw CoreDataError(NSPersistentStoreOperationError, "The PostgreSQL store at \(location) failed: \(error)", userInfo: [NSUnderlyingErrorKey: error])
        }
    }

    func readOnlyError(_ operation: String) -> CoreDataError {
        CoreDataError(NSPersistentStoreSaveError,
                      "cannot \(operation): the store at \(location) was added read-only (NSReadOnlyPersistentStoreOption); nothing was written")
    }
}

import Foundation
import Logging

/// Core Data's named in-memory SQLite store (`/dev/null/<name>`): one in-memory database that every
/// coordinator of the process opening the same URL shares, for as long as one of them has it open. It is
/// SQLite's `memdb` database of that name (`file:/dev/null/<name>?vfs=memdb`), which connections of one
/// process share with SQLite's ordinary locks (a writer's transaction makes the others wait, within the
/// busy timeout): a store on it is a SQLite store in everything, history, batch requests, migration and
/// remote change notices between the sharing coordinators among them (``SQLiteRemoteChangeWatcher``).
/// Each coordinator reads and writes on one connection (no WAL in memory, so no readers beside the
/// writer and no query generations); its external binary data stays in its rows.
extension SQLiteStore {
    /// The SQLite URI of the named in-memory database at `url`.
    static func namedMemoryLocation(_ url: URL) -> String {
        SQLiteConnection.uri(url.path, query: "vfs=memdb")
    }

    /// A connection to the named in-memory store at `url`, for its metadata; `nil` when no coordinator of
    /// the process holds it (the database then has no store schema).
    static func namedMemoryStore(at url: URL) throws -> SQLiteConnection? {
        let db = try opening(url.path, "cannot open the named in-memory database") {
            try SQLiteConnection(path: url.path, location: namedMemoryLocation(url))
        }
        return try opening(url.path, "cannot read the database") { try contents(of: db) } == .store ? db : nil
    }

    /// Opens the named in-memory database, creating the store's schema when it is new, or checking (and
    /// migrating, when the options ask for it) the store another coordinator made in it.
    static func openNamedMemory(_ url: URL, model: NSManagedObjectModel, tables: [Int: TableInfo], options: StoreOpenOptions,
                                logger: Logger?) throws -> OpenedStore {
        let path = url.path
        let db = try opening(path, "cannot open the named in-memory database") {
            try SQLiteConnection(path: path, location: namedMemoryLocation(url), logger: logger)
        }
        var existing: ExistingStore?
        switch try opening(path, "cannot read the database", { try retryingBusy { try contents(of: db) } }) {
        case .foreign where !options.adoptForeignDatabase: throw foreignDatabaseError(path)
        case .store:
            existing = try opening(path, "cannot read the store") {
                try retryingBusy { try checkExisting(db, model: model, tables: tables, options: options, migrating: options.migratesAutomatically) }
            }
        case .empty where options.readOnly:
            throw CoreDataError(NSPersistentStoreOperationError,
                                "cannot open the store at \(path) read-only: no coordinator of this process holds it, and a read-only store cannot create one",
                                userInfo: [NSFilePathErrorKey: path])
        case .empty, .foreign: break
        }
        if let migration = existing?.migration {
            var migration = migration
            migration.defersCleanup = options.defersMigrationCleanup
            existing = try migrate(db, migration, model: model, tables: tables)
        }
        let (identifier, metadata) = try opening(path, "cannot set up the database") {
            try retryingBusy { try openSchema(db, model: model, tables: tables, options: options, existing: existing) }
        }
        if options.readOnly { try opening(path, "cannot make the connection read-only") { try db.execute("PRAGMA query_only = 1") } }
        return OpenedStore(writer: db, readers: [], identifier: identifier, metadata: metadata)
    }
}

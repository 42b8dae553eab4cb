import CSQLite
import Foundation
import Logging

/// The store options that decide how a SQLite store is opened (from the options dictionary of
/// `addPersistentStore(ofType:configurationName:at:options:)` or a store description).
struct StoreOpenOptions {
    /// `NSReadOnlyPersistentStoreOption` (or `NSPersistentStoreDescription.isReadOnly`).
    var readOnly = false
    /// `OpenCoreDataAdoptForeignDatabaseOption`.
    var adoptForeignDatabase = false
    /// The model configuration the store was added with (`nil`: every entity).
    var configuration: String?
    /// `NSIgnorePersistentStoreVersioningOption`: the version hashes are not compared.
    var ignoresVersioning = false
    /// `NSPersistentStoreDeferredLightweightMigrationOptionKey`: a migration keeps the replaced tables for later.
    var defersMigrationCleanup = false
    /// `NSMigratePersistentStoresAutomaticallyOption` and `NSInferMappingModelAutomaticallyOption` both
    /// true: a store made with another model is migrated by an inferred mapping.
    var migratesAutomatically = false

    init(readOnly: Bool = false, adoptForeignDatabase: Bool = false) {
        self.readOnly = readOnly
        self.adoptForeignDatabase = adoptForeignDatabase
    }

    /// `NSPersistentStoreTimeoutOption`, in seconds.
    var timeout: TimeInterval?
    /// `NSSQLitePragmasOption`, by name.
    var pragmas: [(name: String, value: Any)] = []
    /// `NSSQLiteAnalyzeOption`: `ANALYZE` once the store is open.
    var analyze = false
    /// `NSSQLiteManualVacuumOption`: `VACUUM` once the store is open.
    var manualVacuum = false
    /// Reader connections beside the writer: `NSPersistentStoreConnectionPoolMaxSizeKey` minus the writer
    /// (2 without it; 0 reads on the writer).
    var readerCount = 2
    /// `NSPersistentHistoryTrackingKey`: saves and batch requests record persistent history.
    var tracksHistory = false
    /// The model a migration tries first as the store's (``StoreOpenRequest/knownSource``).
    var knownSource: NSManagedObjectModel?

    init(_ options: [AnyHashable: Any]?) {
        readOnly = StoreOptionValue.flag(options?[NSReadOnlyPersistentStoreOption])
        adoptForeignDatabase = StoreOptionValue.flag(options?[OpenCoreDataAdoptForeignDatabaseOption])
        migratesAutomatically = StoreOptionValue.flag(options?[NSMigratePersistentStoresAutomaticallyOption])
            && StoreOptionValue.flag(options?[NSInferMappingModelAutomaticallyOption])
        timeout = (options?[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue ?? options?[NSPersistentStoreTimeoutOption] as? Double
        let dictionary = (options?[NSSQLitePragmasOption] as? NSDictionary) ?? (options?[NSSQLitePragmasOption] as? [String: Any]).map { NSDictionary(dictionary: $0) }
        pragmas = (dictionary ?? [:]).compactMap { key, value in (key as? String).map { ($0, value) } }.sorted { $0.name < $1.name }
        analyze = StoreOptionValue.flag(options?[NSSQLiteAnalyzeOption])
        ignoresVersioning = StoreOptionValue.flag(options?[NSIgnorePersistentStoreVersioningOption])
        defersMigrationCleanup = StoreOptionValue.flag(options?[NSPersistentStoreDeferredLightweightMigrationOptionKey])
        manualVacuum = StoreOptionValue.flag(options?[NSSQLiteManualVacuumOption])
        tracksHistory = StoreOptionValue.flag(options?[NSPersistentHistoryTrackingKey])
        if let size = (options?[NSPersistentStoreConnectionPoolMaxSizeKey] as? NSNumber)?.intValue ?? options?[NSPersistentStoreConnectionPoolMaxSizeKey] as? Int {
            readerCount = max(0, size - 1)
        }
    }

    /// The maintenance statements the options ask for once the store is open (`ANALYZE`, `VACUUM`).
    var maintenanceStatements: [String] {
        (analyze ? ["ANALYZE"] : []) + (manualVacuum ? ["VACUUM"] : [])
    }

    /// Applies the timeout to a connection, and the pragmas too when it is the writer.
    func configure(_ db: SQLiteConnection, writer: Bool) throws {
        if let timeout { db.setBusyTimeout(timeout) }
        guard writer else { return }
        for statement in try pragmaStatements() + maintenanceStatements { try db.execute(statement) }
    }

    /// The pragmas as statements, every one checked before any runs. Pragmas take no bound parameters:
    /// the name must be an identifier, and the value is written as a number or a quoted SQL string.
    func pragmaStatements() throws -> [String] {
        try pragmas.map { name, value in
            guard ModelNameRules.isIdentifier(name), name.allSatisfy(\.isASCII) else {
                throw CoreDataError(NSPersistentStoreInvalidTypeError, "NSSQLitePragmasOption: \"\(name)\" is not a pragma name")
            }
            switch value {
            case let text as String: return "PRAGMA \(name) = '" + text.replacingOccurrences(of: "'", with: "''") + "'"
            case let number as NSNumber: return "PRAGMA \(name) = \(number.stringValue)"
            default:
                throw CoreDataError(NSPersistentStoreInvalidTypeError, "NSSQLitePragmasOption: the value of \(name) is neither a number nor a string")
            }
        }
    }
}

/// The connections, identity and metadata of a store that opened.
struct OpenedStore {
    let writer: SQLiteConnection
    let readers: [SQLiteConnection]
    let identifier: String
    /// The metadata as ``NSPersistentStore/metadata`` gives it (`NSStoreUUIDKey`, `NSStoreTypeKey`, …).
    let metadata: [String: Any]
}

/// What a database file holds before we touch it.
enum DatabaseContents {
    /// `Z_METADATA` exists: a store (ours or Core Data's; the metadata check decides).
    case store
    /// No tables at all (a new, 0-byte or empty database): we create the schema.
    case empty
    /// Tables but no `Z_METADATA`: another program's database.
    case foreign
}

extension SQLiteStore {
    /// Attempts for a step that failed with `SQLITE_BUSY`/`SQLITE_LOCKED` despite the busy timeout (a
    /// journal-mode change or a lock upgrade that would deadlock is refused at once, without waiting).
    static let busyRetries = 100

    /// Opens (and, unless read-only, creates) the database of a store at `url`, or an in-memory one.
    static func open(url: URL?, model: NSManagedObjectModel, tables: [Int: TableInfo], options: StoreOpenOptions,
                     logger: Logger?) throws -> OpenedStore {
        _ = try options.pragmaStatements()  // a bad pragma is refused before the file is touched
        guard let url else {
            let db = try opening(":memory:", "cannot open an in-memory database") { try SQLiteConnection(path: ":memory:", logger: logger) }
            let (identifier, metadata) = try opening(":memory:", "cannot create the schema") {
                try openSchema(db, model: model, tables: tables, options: options, existing: nil)
            }
            return OpenedStore(writer: db, readers: [], identifier: identifier, metadata: metadata)
        }
        let opened = SQLiteStoreKind.isNamedDevNull(url)
            ? try openNamedMemory(url, model: model, tables: tables, options: options, logger: logger)
            : options.readOnly
            ? try openReadOnly(path: url.path, model: model, tables: tables, logger: logger, options: options)
            : try openReadWrite(url: url, model: model, tables: tables, options: options, logger: logger)
        try opening(url.path, "cannot apply the store's options") {
            try options.configure(opened.writer, writer: !options.readOnly)
            for reader in opened.readers { try options.configure(reader, writer: false) }
        }
        return opened
    }

    private static func openReadWrite(url: URL, model: NSManagedObjectModel, tables: [Int: TableInfo], options: StoreOpenOptions,
                                       logger: Logger?) throws -> OpenedStore {
        let path = url.path
        let directory = url.deletingLastPathComponent()
        try opening(path, "cannot create its directory \(directory.path)") {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        // SQLite takes a file shorter than one page for an empty database and would overwrite it.
        if !isEmptyOrSQLite(path) { throw foreignDatabaseError(path, sqlite: false) }
        // An existing file is looked at through a read-only connection first: another program's database
        // or a store that fails its checks is refused untouched (closing a writable connection to a WAL
        // database would checkpoint it into the main file).
        var existing = try probe(path, model: model, tables: tables, options: options, logger: logger)
        let db = try opening(path, "cannot open or create the database file") {
            try retryingBusy { try SQLiteConnection(path: path, logger: logger) }
        }
        if existing == nil {
            let contents = try opening(path, "cannot read the database") { try retryingBusy { try Self.contents(of: db) } }
            if contents == .foreign, !options.adoptForeignDatabase { throw foreignDatabaseError(path) }
            if contents == .store {  // made by another process since the probe
                existing = try opening(path, "cannot read the store") {
                    try retryingBusy { try checkExisting(db, model: model, tables: tables, options: options, migrating: options.migratesAutomatically) }
                }
            }
        }
        if let migration = existing?.migration {
            // The app's pragmas (NSSQLitePragmasOption) hold for the migration too.
            for statement in try options.pragmaStatements() { try opening(path, "cannot set up the database") { try db.execute(statement) } }
            var migration = migration
            migration.defersCleanup = options.defersMigrationCleanup
            existing = try migrate(db, migration, model: model, tables: tables)
        }
        let (identifier, metadata) = try opening(path, "cannot set up the database") { () -> (String, [String: Any]) in
            // Core Data's incremental auto-vacuum, settable only before the first page is written.
            if existing == nil { try db.execute("PRAGMA auto_vacuum = 2") }
            try retryingBusy { try db.execute("PRAGMA journal_mode = WAL") }
            try db.execute("PRAGMA synchronous = NORMAL")
            return try retryingBusy { try openSchema(db, model: model, tables: tables, options: options, existing: existing) }
        }
        let readers = try opening(path, "cannot open a reader connection") {
            try (0..<options.readerCount).map { _ in
                try retryingBusy { () -> SQLiteConnection in
                    let reader = try SQLiteConnection(path: path, logger: logger)
                    try reader.execute("PRAGMA query_only = 1")
                    return reader
                }
            }
        }
        return OpenedStore(writer: db, readers: readers, identifier: identifier, metadata: metadata)
    }

    /// Checks an existing, non-empty file with a read-only connection, closed before returning: `nil` for
    /// no file, an empty database, or one the probe cannot open (the writable open then decides).
    private static func probe(_ path: String, model: NSManagedObjectModel, tables: [Int: TableInfo], options: StoreOpenOptions,
                              logger: Logger?) throws -> ExistingStore? {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size > 0, let db = try? SQLiteConnection(path: path, readOnly: true, logger: logger),
              let contents = try? retryingBusy({ try Self.contents(of: db) }) else { return nil }
        switch contents {
        case .empty: return nil
        case .foreign:
            if options.adoptForeignDatabase { return nil }
            throw foreignDatabaseError(path)
        case .store:
            return try opening(path, "cannot read the store") {
                try retryingBusy { try checkExisting(db, model: model, tables: tables, options: options, migrating: options.migratesAutomatically) }
            }
        }
    }

    /// Opens an existing store with `SQLITE_OPEN_READONLY`: no schema creation, no journal-mode change,
    /// nothing written. A WAL database whose `-shm` file cannot be created (an unwritable directory) is
    /// opened again with `immutable=1`, which reads the main file only.
    private static func openReadOnly(path: String, model: NSManagedObjectModel, tables: [Int: TableInfo], logger: Logger?,
                                     options: StoreOpenOptions) throws -> OpenedStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CoreDataError(NSPersistentStoreOperationError,
                                "cannot open the store at \(path) read-only: there is no file at that path (a read-only store is never created)",
                                userInfo: [NSFilePathErrorKey: path])
        }
        if !isEmptyOrSQLite(path) { throw foreignDatabaseError(path, sqlite: false) }
        var location = path
        var db = try opening(path, "cannot open the database file read-only") {
            try retryingBusy { try SQLiteConnection(path: location, readOnly: true, logger: logger) }
        }
        var contents: DatabaseContents
        do {
            contents = try retryingBusy { try Self.contents(of: db) }
        } catch let error as SQLiteError where error.primaryCode == SQLITE_CANTOPEN || error.primaryCode == SQLITE_READONLY {
            // The -shm (or -wal) file cannot be created next to the database: read the file as immutable.
            logger?.debug("CoreData: annotation: \(path) cannot be opened for shared reading (\(error.message)); opening it immutable")
            location = SQLiteConnection.uri(path, query: "immutable=1")
            db = try opening(path, "cannot open the database file as immutable") {
                try SQLiteConnection(path: location, readOnly: true, logger: logger)
            }
            contents = try opening(path, "cannot read the database (opened as immutable)") { try Self.contents(of: db) }
        } catch {
            throw openError(path, "cannot read the database", error)
        }
        switch contents {
        case .foreign: throw foreignDatabaseError(path)
        case .empty:
            throw CoreDataError(NSPersistentStoreOperationError,
                                "cannot open the store at \(path) read-only: the database has no store schema, and a read-only store cannot create one",
                                userInfo: [NSFilePathErrorKey: path])
        case .store: break
        }
        let existing = try opening(path, "cannot read the store") { try checkExisting(db, model: model, tables: tables, options: options) }
        let readers = try opening(path, "cannot open a reader connection") {
            try (0..<options.readerCount).map { _ in try SQLiteConnection(path: location, readOnly: true, logger: logger) }
        }
        return OpenedStore(writer: db, readers: readers, identifier: existing.identifier, metadata: existing.metadata)
    }

    /// Whether the database holds a store, nothing, or another program's tables. Reads only.
    static func contents(of db: SQLiteConnection) throws -> DatabaseContents {
        var tables = 0, metadata = false
        try db.query("SELECT name FROM sqlite_master WHERE type = ?", [.string("table")]) { row in
            tables += 1
            if case .string("Z_METADATA") = row.value(0, as: .stringAttributeType) { metadata = true }
        }
        return metadata ? .store : tables == 0 ? .empty : .foreign
    }

    static func tableExists(_ db: SQLiteConnection, _ name: String) throws -> Bool {
        var exists = false
        try db.query("SELECT count(*) FROM sqlite_master WHERE type = ? AND name = ?", [.string("table"), .string(name)]) {
            exists = $0.int64(0) > 0
        }
        return exists
    }

    /// Creates the schema of a new store, or upgrades a legacy one, and returns its UUID and metadata. The
    /// schema is created in one `BEGIN IMMEDIATE` transaction that looks again for `Z_METADATA` once it
    /// holds the write lock: of several processes creating one new store at once, one creates it and the
    /// others find it made (and check it).
    static func openSchema(_ db: SQLiteConnection, model: NSManagedObjectModel, tables: [Int: TableInfo],
                           options: StoreOpenOptions, existing: ExistingStore?) throws -> (String, [String: Any]) {
        if let existing {
            guard let legacy = existing.legacy else { return (existing.identifier, existing.metadata) }
            try db.transaction {
                // Another process may have upgraded it while we waited for the lock.
                if try LegacyStore.read(db, model: model) != nil { try upgrade(legacy, db, model: model, tables: tables) }
            }
            return (existing.identifier, existing.metadata)
        }
        let created = try db.transaction { () -> (String, [String: Any])? in
            switch try contents(of: db) {
            case .store: return nil  // another process made it while we waited for the lock
            case .foreign where !options.adoptForeignDatabase: throw foreignDatabaseError(db.path)
            case .empty, .foreign: return try createSchema(db, model: model, tables: tables)
            }
        }
        if let created { return created }
        return try openSchema(db, model: model, tables: tables, options: options,
                              existing: try checkExisting(db, model: model, tables: tables, options: options))
    }

    /// Creates every table of a new store inside the caller's transaction, as Core Data does (`Z_PRIMARYKEY`, `Z_METADATA` with Core Data's property list; no `Z_MODELCACHE`, see
    /// docs/StoreFormat.md); returns the new store's UUID and metadata.
    private static func createSchema(_ db: SQLiteConnection, model: NSManagedObjectModel, tables: [Int: TableInfo]) throws -> (String, [String: Any]) {
        let uuid = UUID().uuidString
        let plist = StoreMetadata.plist(for: model)
        try db.execute(CoreDataTables.primaryKey)
        try db.execute(CoreDataTables.metadata)
        // An in-memory store (`NSInMemoryStoreType`, and the mirror of an atomic store) is not a SQLite
        // file on Apple platforms: it keeps −0.0. Its double and float columns have no declared type, as
        // a REAL column would keep −0.0 as the integer 0 (docs/Store.md).
        let keepsNegativeZero = db.path == ":memory:"
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            try db.execute(table.createTable(keepingNegativeZero: keepsNegativeZero))
            for index in table.indexes { try db.execute(index) }
        }
        for join in TableInfo.joinTables(of: model, within: tables) {
            try db.execute(join.createTable)
            try db.execute(join.index)
        }
        for write in CoreDataTables.rows(model, uuid: uuid, metadata: try StoreMetadata.encode(plist)) { try db.run(write) }
        return (uuid, plist.merging([NSStoreUUIDKey: uuid]) { a, _ in a })
    }

    /// Runs `body` again (after a short, jittered sleep) while it fails with `SQLITE_BUSY` or
    /// `SQLITE_LOCKED`, at most `busyRetries` times and not after 10 seconds (a step that did wait out the
    /// busy timeout is not retried for long).
    static func retryingBusy<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        let deadline = Date().addingTimeInterval(10)
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where (error.primaryCode == SQLITE_BUSY || error.primaryCode == SQLITE_LOCKED)
                && attempt < busyRetries && Date() < deadline {
                attempt += 1
                usleep(UInt32.random(in: 2_000...20_000))
            }
        }
    }

    /// Runs one step of opening the store at `path`; a failure becomes Core Data's store error naming
    /// the path and `step` (errors that already are `CoreDataError`s pass through).
    @discardableResult
    static func opening<T>(_ path: String, _ step: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw openError(path, step, error)
        }
    }

    static func openError(_ path: String, _ step: String, _ error: Error) -> CoreDataError {
        if let error = error as? CoreDataError { return error }
        var userInfo: [String: Any] = [NSFilePathErrorKey: path]
        let reason: String
        if let error = error as? SQLiteError {
            userInfo[NSSQLiteErrorDomain] = Int(error.code)
            userInfo[NSUnderlyingErrorKey] = error
            reason = error.description
        } else {
            let error = error as NSError
            userInfo[NSUnderlyingErrorKey] = error
            reason = (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? error.localizedDescription
        }
        return CoreDataError(NSPersistentStoreOperationError, "cannot open the store at \(path): \(step): \(reason)", userInfo: userInfo)
    }

    static func foreignDatabaseError(_ path: String, sqlite: Bool = true) -> CoreDataError {
        guard sqlite else {
            return CoreDataError(NSPersistentStoreInvalidTypeError,
                                 "The file at \(path) is not a SQLite database; it was left untouched.",
                                 userInfo: [NSFilePathErrorKey: path])
        }
        return CoreDataError(NSPersistentStoreInvalidTypeError,
                             "The file at \(path) is a SQLite database that was not made by Core Data (it has tables but no Z_METADATA); it was left untouched. Set OpenCoreDataAdoptForeignDatabaseOption to add the store's tables to it.",
                             userInfo: [NSFilePathErrorKey: path])
    }

    /// True when there is no file at `path`, or it is empty, or it starts with SQLite's header string.
    static func isEmptyOrSQLite(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return true }
        defer { try? file.close() }
        let header = (try? file.read(upToCount: 16)) ?? Data()
        return header.isEmpty || header == Data("SQLite format 3\0".utf8)
    }

    /// The error of a save (or key allocation) on a read-only store: Core Data's `NSPersistentStoreSaveError`.
    func readOnlyError(_ operation: String) -> CoreDataError {
        CoreDataError(NSPersistentStoreSaveError,
                      "cannot \(operation): the store at \(path) was added read-only (NSReadOnlyPersistentStoreOption); nothing was written",
                      userInfo: [NSFilePathErrorKey: path])
    }
}

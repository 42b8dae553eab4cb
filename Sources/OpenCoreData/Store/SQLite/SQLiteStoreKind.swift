import Foundation

extension StoreRegistry {
    /// The kinds built into the library: the SQLite store, on a file or in memory.
    static let builtInKinds: [String: any StoreKind] = [
        NSSQLiteStoreType: SQLiteStoreKind(inMemory: false),
        NSInMemoryStoreType: SQLiteStoreKind(inMemory: true),
    ]
}

/// `NSSQLiteStoreType` and `NSInMemoryStoreType` in the ``StoreRegistry``: a SQLite database file, or an
/// in-memory database that behaves exactly as the file store does (same SQL, same semantics).
struct SQLiteStoreKind: StoreKind {
    let inMemory: Bool

    var needsURL: Bool { !inMemory }
    var runsStagedMigrations: Bool { !inMemory }

    func open(_ request: StoreOpenRequest) throws -> any StoreBackend {
        var options = StoreOpenOptions(request.options)
        options.configuration = request.configuration
        options.knownSource = request.knownSource
        let inMemory = inMemory || request.url.map(Self.isDevNull) == true
        return try SQLiteStore(url: inMemory ? nil : request.url, model: request.model, options: options, logger: request.logger)
    }

    /// `/dev/null`: Apple's documented idiom for a SQLite store in memory, private to its coordinator.
    static func isDevNull(_ url: URL) -> Bool { url.path == "/dev/null" }

    /// `/dev/null/<name>`: Core Data's named in-memory SQLite database, shared by the coordinators of a
    /// process that open the same URL.
    static func isNamedDevNull(_ url: URL) -> Bool { url.path.hasPrefix("/dev/null/") }

    func metadata(at url: URL) throws -> [String: Any] {
        try requireFile()
        return try SQLiteStore.readMetadata(at: url)
    }

    func setMetadata(_ metadata: [String: Any], at url: URL) throws {
        try requireFile()
        try StoreMetadata.write(metadata, toStoreAt: url)
    }

    /// An in-memory store has no file to read or write metadata of.
    private func requireFile() throws {
        if inMemory { throw CoreDataError(NSPersistentStoreInvalidTypeError, "An in-memory store has no file to hold metadata") }
    }

    /// Removes the file, its WAL and shared-memory files and its externally stored values; a file that is
    /// not a SQLite database is refused (unless `NSPersistentStoreForceDestroyOption`), untouched.
    func destroy(at url: URL, options: [AnyHashable: Any]?) throws {
        // An in-memory store (`/dev/null` among them) has no file: nothing to remove, and never the device.
        guard !inMemory, !Self.isDevNull(url), !Self.isNamedDevNull(url) else { return }
        let manager = FileManager.default
        if manager.fileExists(atPath: url.path) {
            guard Self.isSQLiteFile(url) || StoreOptionValue.flag(options?[NSPersistentStoreForceDestroyOption]) else {
                throw CoreDataError(NSPersistentStoreInvalidTypeError, "\(url.path) is not a SQLite store; it was not destroyed.")
            }
        }
        for file in [url, URL(fileURLWithPath: url.path + "-wal"), URL(fileURLWithPath: url.path + "-shm"), ExternalBinaryStorage.supportFolder(of: url)]
        where manager.fileExists(atPath: file.path) {
            do {
                try manager.removeItem(at: file)
            } catch {
                throw CoreDataError(NSPersistentStoreOperationError, "Could not destroy the store at \(url.path): \(error.localizedDescription)",
                                    userInfo: [NSUnderlyingErrorKey: error])
            }
        }
    }

    /// Copies the source database into the destination through SQLite's backup (so that an open WAL is
    /// taken into account), then the externally stored values.
    func replace(at destination: URL, from source: URL) throws {
        guard !inMemory else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "replacePersistentStore copies store files; an in-memory store has none")
        }
        try Self.requireSQLiteFile(source)
        if FileManager.default.fileExists(atPath: destination.path) { try Self.requireSQLiteFile(destination) }
        do {
            let sourceDB = try SQLiteConnection(path: source.path, readOnly: true)
            let destinationDB = try SQLiteConnection(path: destination.path)
            try destinationDB.replaceContents(from: sourceDB)
        } catch let error as SQLiteError {
            throw CoreDataError(NSPersistentStoreOperationError, "Could not replace the store at \(destination.path): \(error.message)",
                                userInfo: [NSFilePathErrorKey: destination.path])
        }
        try ExternalBinaryStorage.copySupportFolder(from: source, to: destination)
    }

    /// Whether a file starts with SQLite's header (an empty file counts: SQLite makes it a database).
    static func isSQLiteFile(_ url: URL) -> Bool {
        let header = (try? FileHandle(forReadingFrom: url).read(upToCount: 16)) ?? Data()
        return header.isEmpty || header == Data("SQLite format 3\0".utf8)
    }

    static func requireSQLiteFile(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no store at \(url.path)", userInfo: [NSFilePathErrorKey: url.path])
        }
        guard isSQLiteFile(url) else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "\(url.path) is not a SQLite store", userInfo: [NSFilePathErrorKey: url.path])
        }
    }
}

extension SQLiteStore: CopyableStore {
    var copyType: String { NSSQLiteStoreType }

    /// Copies the database (through SQLite's backup, on the writer) into a new file at `url`, written
    /// beside it under a temporary name and moved into place, then the externally stored values.
    func copy(to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).copying")
        let leftovers = ["", "-wal", "-shm", "-journal"].map { URL(fileURLWithPath: temporary.path + $0) }
        defer { for file in leftovers { try? FileManager.default.removeItem(at: file) } }
        do {
            do {
                let copy = try SQLiteConnection(path: temporary.path)
                try write { db in try copy.replaceContents(from: db) }
            }
            try FileManager.default.moveItem(at: temporary, to: url)
        } catch let error as SQLiteError {
            throw CoreDataError(NSPersistentStoreOperationError, "Could not copy the store to \(url.path): \(error.message)",
                                userInfo: [NSFilePathErrorKey: url.path])
        }
        if externalStorage != nil { try? ExternalBinaryStorage.copySupportFolder(from: URL(fileURLWithPath: path), to: url) }
    }
}

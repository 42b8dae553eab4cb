import Foundation

/// The PostgreSQL store type in the ``StoreRegistry``, registered by OpenCoreDataPostgres (which brings
/// the driver, ``PostgresWire``) when it is linked. A store is named by its URL,
/// `postgres://user:password@host:port/database?schema=name` (or `postgresql://`; the schema defaults
/// to `public`): the store's tables live in that schema.
package struct PostgresStoreKind: StoreKind {
    /// The store type's name (`NSPostgreSQLStoreType`).
    package static let type = "PostgreSQL"

    /// Opens a wire (a pool of connections) to the database and schema of a store URL.
    let connect: @Sendable (URL) throws -> any PostgresWire

    /// Registers the store type with the way to connect (OpenCoreDataPostgres calls it once).
    package static func register(connect: @escaping @Sendable (URL) throws -> any PostgresWire) {
        StoreRegistry.register(PostgresStoreKind(connect: connect), type: type)
    }

    /// Whether a URL names a PostgreSQL database.
    package static func isPostgres(_ url: URL) -> Bool {
        ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? "")
    }

    /// The schema a store URL names (`?schema=`), `public` when it names none. Only letters, digits and
    /// `_` (not first a digit), at most 63 bytes: the name is written into SQL, quoted.
    package static func schema(of url: URL) throws -> String {
        let name = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value ?? "public"
        let valid = !name.isEmpty && name.utf8.count <= 63 && name.first.map { !$0.isNumber } == true
            && name.unicodeScalars.allSatisfy { ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || $0 == "_" }
        guard valid else {
            throw CoreDataError(NSPersistentStoreOpenError, "The schema name \"\(name)\" in \(PostgresStore.location(of: url)) is not a plain identifier (letters, digits and _, at most 63 bytes).")
        }
        return name
    }

    package var needsURL: Bool { true }
    package var runsStagedMigrations: Bool { false }

    package func open(_ request: StoreOpenRequest) throws -> any StoreBackend {
        guard let url = request.url else { throw CoreDataError(NSPersistentStoreInvalidTypeError, "A PostgreSQL store needs a postgres:// URL") }
        var options = StoreOpenOptions(request.options)
        options.configuration = request.configuration
        return try PostgresStore(url: url, model: request.model, options: options, wire: try wire(url))
    }

    /// A wire to the store at `url`, whose connections use the URL's schema (made when missing).
    private func wire(_ url: URL) throws -> any PostgresWire {
        guard Self.isPostgres(url) else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "A PostgreSQL store's URL is postgres://user@host:port/database, not \(url.absoluteString)")
        }
        _ = try Self.schema(of: url)
        return try connect(url)
    }

    package func metadata(at url: URL) throws -> [String: Any] {
        let wire = try wire(url)
        defer { wire.close() }
        let row = try readMetadataRow(wire, url)
        guard var plist = (try? PropertyListSerialization.propertyList(from: row.plist, format: nil)) as? [String: Any] else {
            throw StoreMetadata.unreadable(PostgresStore.location(of: url), "Z_METADATA.Z_PLIST is not a property list dictionary")
        }
        plist[NSStoreUUIDKey] = row.uuid
        plist[NSStoreTypeKey] = Self.type
        return plist
    }

    package func setMetadata(_ metadata: [String: Any], at url: URL) throws {
        let current = try self.metadata(at: url)
        let wire = try wire(url)
        defer { wire.close() }
        var plist = StoreMetadata.plistToWrite(metadata, keeping: current)
        plist[NSStoreTypeKey] = Self.type
        var context = SQLGenerationContext()
        let sql = try PostgresPrinter.sql(CoreDataTables.writeMetadata(try StoreMetadata.encode(plist), uuid: metadata[NSStoreUUIDKey] as? String), &context)
        try failing(url) { _ = try wire.withSession { try $0.run(sql, try [PostgresDatum](binding: context.arguments)) } }
    }

    private func readMetadataRow(_ wire: any PostgresWire, _ url: URL) throws -> (uuid: String, plist: Data) {
        let rows = try failing(url) {
            try wire.withSession { session -> [[PostgresDatum]] in
                let found = try session.run("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'z_metadata'", [])
                guard found.rows.first?.first?.integer == 1 else { return [] }
                return try session.run("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1", []).rows
            }
        }
        guard let row = rows.first, let uuid = row[0].text, let plist = row[1].bytes else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no store at \(PostgresStore.location(of: url)).")
        }
        return (uuid, plist)
    }

    /// `destroyPersistentStore`: a store in a schema of its own loses the schema (`DROP SCHEMA … CASCADE`);
    /// a store in `public` loses Core Data's tables there (`Z_PRIMARYKEY`, `Z_METADATA` and its model's
    /// entity and join tables, listed in `Z_PRIMARYKEY`), nothing else.
    package func destroy(at url: URL, options: [AnyHashable: Any]?) throws {
        let schema = try Self.schema(of: url)
        let wire = try wire(url)
        defer { wire.close() }
        try failing(url) {
            try wire.withSession { session in
                if schema != "public" {
                    _ = try session.run("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE", [])
                    return
                }
                var names = try session.run("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'z\\_%'", [])
                    .rows.compactMap { $0[0].text }
                if names.contains("z_primarykey") {
                    names += try session.run("SELECT 'z' || lower(Z_NAME) FROM Z_PRIMARYKEY", []).rows.compactMap { $0[0].text }
                }
                let tables = PostgresResult(rows: names.map { [.text($0)] }, affected: 0)
                for name in tables.rows.compactMap({ $0[0].text }) { _ = try session.run("DROP TABLE IF EXISTS \"\(name)\" CASCADE", []) }
            }
        }
    }

    package func replace(at destination: URL, from source: URL) throws {
        throw CoreDataError(NSPersistentStoreOperationError, "Replacing a PostgreSQL store is not supported: copy the database with pg_dump and pg_restore (docs/PostgreSQL.md).")
    }

    private func failing<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresWireError {
            throw CoreDataError(NSPersistentStoreOperationError, "The PostgreSQL store at \(PostgresStore.location(of: url)) failed: \(error)",
                                userInfo: [NSUnderlyingErrorKey: error])
        }
    }
}

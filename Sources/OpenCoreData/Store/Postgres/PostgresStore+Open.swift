import Foundation

/// Opening a PostgreSQL store: the schema made from the model in Core Data's layout when the store's
/// schema has no `Z_METADATA` yet, else the metadata read and checked against the model — and, when the
/// store was made with another model version and the options ask for it
/// (`NSMigratePersistentStoresAutomaticallyOption`), migrated in place (``InPlaceMigration``). Opening
/// runs in one transaction under an advisory lock, so that of several processes opening one new (or
/// older) store at once, one creates (or migrates) it and the others find it done; a failure leaves the
/// database as it was (PostgreSQL's DDL is transactional).
extension PostgresStore {
    static func open(_ wire: any PostgresWire, schema: String, model: NSManagedObjectModel, tables: [Int: TableInfo],
                     entities: [NSEntityDescription], options: StoreOpenOptions, location: String) throws -> (String, [String: Any], Int) {
        do {
            return try wire.withSession { session in
                _ = try session.run("BEGIN", [])
                do {
                    // One lock per schema name: concurrent openers of one new store take turns.
                    _ = try session.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text(schema)])
                    if !options.readOnly { _ = try session.run("CREATE SCHEMA IF NOT EXISTS \"\(schema)\"", []) }
                    var opened = try existing(session, location: location) ?? create(session, model: model, tables: tables,
                                                                                      readOnly: options.readOnly, location: location)
                    if try migrateIfNeeded(session, opened.metadata, model: model, tables: tables, options: options, location: location) {
                        opened = try existing(session, location: location) ?? opened
                    }
                    if !options.readOnly {
                        let made = try relations(session)
                        for index in ModelIndexes.indexes(entities) + ModelIndexes.unique(model, within: tables).map(\.index)
                        where !made.contains(index.name.lowercased()) {
                            var index = index
                            index.ifNotExists = true
                            _ = try session.run(try PostgresPrinter.sql(.createIndex(index)), [])
                        }
                    }
                    let width = try prepareHistory(session, model: model, tracks: options.tracksHistory && !options.readOnly)
                    _ = try session.run("COMMIT", [])
                    return (opened.identifier, opened.metadata, width)
                } catch {
                    _ = try? session.run("ROLLBACK", [])
                    throw error
                }
            }
        } catch let error as PostgresWireError {
            throw CoreDataError(NSPersistentStoreOpenError, "The PostgreSQL store at \(location) could not be opened: \(error); nothing was written.",
                                userInfo: [NSUnderlyingErrorKey: error])
        }
    }

    /// The tables and indexes of the connection's schema, lower-cased (as PostgreSQL keeps unquoted names),
    /// read from the catalog without locking any of them. An open makes only what is missing: `CREATE INDEX
    /// IF NOT EXISTS` locks its table even when the index is there, and with other processes saving
    /// meanwhile that lock deadlocked with their transactions (the chaos trials found it).
    static func relations(_ session: any PostgresSession) throws -> Set<String> {
        let rows = try session.run("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()", [])
        return Set(rows.rows.compactMap { $0.first?.text?.lowercased() })
    }

    /// The UUID and metadata of the store in the connection's schema, `nil` when it has none.
    private static func existing(_ session: any PostgresSession, location: String) throws -> (identifier: String, metadata: [String: Any])? {
        let found = try session.run("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'z_metadata'", [])
        guard found.rows.first?.first?.integer == 1 else { return nil }
        guard let row = try session.run("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1", []).rows.first,
              let uuid = row[0].text, let data = row[1].bytes else {
            throw StoreMetadata.unreadable(location, "Z_METADATA has no row (Z_VERSION 1)")
        }
        guard var plist = (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any] else {
            throw StoreMetadata.unreadable(location, "Z_METADATA.Z_PLIST (\(data.count) bytes) is not a property list dictionary")
        }
        plist[NSStoreUUIDKey] = uuid
        plist[NSStoreTypeKey] = PostgresStoreKind.type
        return (uuid, plist)
    }

    /// Creates the store's tables, indexes and bookkeeping rows; returns its new UUID and metadata.
    private static func create(_ session: any PostgresSession, model: NSManagedObjectModel, tables: [Int: TableInfo],
                               readOnly: Bool, location: String) throws -> (identifier: String, metadata: [String: Any]) {
        guard !readOnly else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no store at \(location) to open read-only (NSReadOnlyPersistentStoreOption); nothing was written.")
        }
        let uuid = UUID().uuidString
        var plist = StoreMetadata.plist(for: model)
        plist[NSStoreTypeKey] = PostgresStoreKind.type
        var changes = [CoreDataTables.primaryKey, CoreDataTables.metadata]
        for table in tables.values.sorted(by: { $0.name < $1.name }) { changes += [table.createTable()] + table.indexes }
        for join in TableInfo.joinTables(of: model, within: tables) { changes += [join.createTable, join.index] }
        for change in changes { _ = try session.run(try PostgresPrinter.sql(change), []) }
        for write in CoreDataTables.rows(model, uuid: uuid, metadata: try StoreMetadata.encode(plist)) {
            var context = SQLGenerationContext()
            let sql = try PostgresPrinter.sql(write, &context)
            _ = try session.run(sql, try [PostgresDatum](binding: context.arguments))
        }
        plist[NSStoreUUIDKey] = uuid
        return (uuid, plist)
    }

    /// The store's version hashes must be the model's; when they are not and the options ask for
    /// automatic migration (a writable store), the store is migrated in the opening transaction and `true`
    /// returned. A migration's database failure is `NSMigrationError`, the server's error under
    /// `NSUnderlyingErrorKey`; the transaction's rollback leaves every table as it was.
    private static func migrateIfNeeded(_ session: any PostgresSession, _ metadata: [String: Any], model: NSManagedObjectModel,
                                        tables: [Int: TableInfo], options: StoreOpenOptions, location: String) throws -> Bool {
        if options.ignoresVersioning || model.isConfiguration(withName: options.configuration, compatibleWithStoreMetadata: metadata) { return false }
        guard options.migratesAutomatically, !options.readOnly else { throw CoreDataError.incompatibleModel(metadata, model: model, path: location) }
        let migration = try InPlaceMigration.plan(metadata: metadata, model: model, tables: tables, path: location, knownSource: options.knownSource)
        do {
            try migration.run(PostgresMigrationDatabase(session: session), metadata: metadata)
        } catch let error as PostgresWireError {
            throw CoreDataError(NSMigrationError, "The PostgreSQL store at \(location) could not be migrated (\(error)); it was left untouched.",
                                userInfo: [NSUnderlyingErrorKey: error])
        }
        return true
    }
}

import CSQLite
import Foundation

extension SQLiteStore {
    /// Runs a planned lightweight migration on the writer connection, before its journal mode is
    /// touched, in one `BEGIN IMMEDIATE` transaction that first reads the metadata again (another process
    /// may have migrated the store meanwhile), then checks the result as any store is checked when it
    /// opens. A failure rolls everything back; the connection then closes without checkpointing a WAL
    /// store's `-wal` file into the database, so the store's files are as they were. Errors are Core
    /// Data's: the check's own codes, else `NSMigrationError` with the SQLite error as
    /// `NSUnderlyingErrorKey` (a full disk among them).
    static func migrate(_ db: SQLiteConnection, _ migration: InPlaceMigration, model: NSManagedObjectModel,
                        tables: [Int: TableInfo]) throws -> ExistingStore {
        let path = db.path
        do {
            try retryingBusy {
                try db.transaction {
                    let metadata = try StoreMetadata.read(db, path: path)
                    if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { return }
                    guard migration.source.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else {
                        throw CoreDataError.incompatibleModel(metadata, model: model, path: path)
                    }
                    try migration.run(db, metadata: metadata)
                }
            }
        } catch {
            _ = csqlite_no_checkpoint_on_close(db.handle, 1)
            if let error = error as? CoreDataError { throw error }
            var userInfo: [String: Any] = [NSFilePathErrorKey: path, NSUnderlyingErrorKey: error]
            if let error = error as? SQLiteError { userInfo[NSSQLiteErrorDomain] = Int(error.code) }
            throw CoreDataError(NSMigrationError, "The store at \(path) could not be migrated (\(error)); it was left untouched.", userInfo: userInfo)
        }
        return try opening(path, "cannot read the migrated store") { try checkExisting(db, model: model, tables: tables, options: StoreOpenOptions()) }
    }
}

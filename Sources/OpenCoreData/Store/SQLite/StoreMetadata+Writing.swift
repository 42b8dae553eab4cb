import Foundation

extension StoreMetadata {
    /// The property list to write for metadata an app set: its keys, with Core Data's own (the model's
    /// hashes, the framework version, …) taken from `current` where the app's dictionary lacks them, so
    /// that the store still opens with its model; the UUID and store type are not in the list (`Z_UUID`
    /// holds the UUID; Core Data adds both when it hands the metadata out).
    static func plistToWrite(_ given: [String: Any], keeping current: [String: Any]) -> [String: Any] {
        var plist = given
        for key in [frameworkVersionKey, NSStoreModelVersionHashesKey, hashesDigestKey, storeModelVersionHashesVersionKey,
                    NSStoreModelVersionIdentifiersKey, NSPersistentStoreModelVersionChecksumKey, autoVacuumKey] where plist[key] == nil {
            plist[key] = current[key]
        }
        plist[NSStoreUUIDKey] = nil
        plist[NSStoreTypeKey] = NSSQLiteStoreType
        return plist
    }

    /// Replaces the metadata row's property list (and its UUID, when `uuid` is given), in `db`'s current
    /// transaction.
    static func write(_ plist: [String: Any], uuid: String?, _ db: SQLiteConnection) throws {
        let data: Data
        do {
            data = try encode(plist)
        } catch {
            throw CoreDataError(NSPersistentStoreOperationError, "The store's metadata cannot be written: it is not a property list (\(error))")
        }
        try db.run(CoreDataTables.writeMetadata(data, uuid: uuid))
    }

    /// `setMetadata(_:forPersistentStoreAt:)` for a SQLite store file: reads its metadata (refusing a
    /// file that is not a Core Data store), then writes the app's in one transaction. The UUID changes
    /// when the dictionary names another.
    static func write(_ metadata: [String: Any], toStoreAt url: URL) throws {
        guard SQLiteStoreKind.isNamedDevNull(url) || FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no store at \(url.path) to write metadata into.",
                                userInfo: [NSFilePathErrorKey: url.path])
        }
        let current = try SQLiteStore.readMetadata(at: url)
        do {
            let named = SQLiteStoreKind.isNamedDevNull(url) ? SQLiteStore.namedMemoryLocation(url) : nil
            let db = try SQLiteConnection(path: url.path, location: named)
            try db.transaction { try write(plistToWrite(metadata, keeping: current), uuid: metadata[NSStoreUUIDKey] as? String, db) }
        } catch let error as SQLiteError {
            throw CoreDataError(NSPersistentStoreOperationError, "Could not write the metadata of \(url.path): \(error.message)",
                                userInfo: [NSFilePathErrorKey: url.path])
        }
    }
}

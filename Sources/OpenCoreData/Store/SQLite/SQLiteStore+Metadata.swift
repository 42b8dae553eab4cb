import Foundation

extension SQLiteStore {
    /// The metadata of the store file at `url`, read without adding the store: Core Data's property list
    /// with `NSStoreUUIDKey` and `NSStoreTypeKey` (see ``StoreMetadata``); for a store written by an
    /// earlier OpenCoreData, its UUID, type and old model hash (`NSStoreModelVersionHash`).
    static func readMetadata(at url: URL) throws -> [String: Any] {
        if SQLiteStoreKind.isNamedDevNull(url) {
            guard let db = try namedMemoryStore(at: url) else { throw noStore(url) }
            return try opening(url.path, "cannot read the store's metadata") { try StoreMetadata.read(db, path: url.path) }
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no store at \(url.path) to read metadata from.",
                                userInfo: [NSFilePathErrorKey: url.path])
        }
        if !isEmptyOrSQLite(url.path) { throw foreignDatabaseError(url.path, sqlite: false) }
        let db = try opening(url.path, "cannot open the database to read its metadata") {
            try SQLiteConnection(path: url.path, readOnly: true)
        }
        return try opening(url.path, "cannot read the store's metadata") {
            guard try tableExists(db, "Z_METADATA") else {
                throw CoreDataError(NSPersistentStoreInvalidTypeError, "\(url.path) is not a Core Data store: it has no Z_METADATA table.",
                                    userInfo: [NSFilePathErrorKey: url.path])
            }
            if let row = try StoreMetadata.row(db), let data = row.plist, data.first == UInt8(ascii: "{"),
               let old = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let uuid = old["storeUUID"] as? String {
                return [NSStoreUUIDKey: uuid, NSStoreTypeKey: NSSQLiteStoreType, "NSStoreModelVersionHash": old["versionHash"] ?? ""]
            }
            return try StoreMetadata.read(db, path: url.path)
        }
    }

    private static func noStore(_ url: URL) -> CoreDataError {
        CoreDataError(NSPersistentStoreOpenError, "There is no store at \(url.path) to read metadata from.", userInfo: [NSFilePathErrorKey: url.path])
    }
}

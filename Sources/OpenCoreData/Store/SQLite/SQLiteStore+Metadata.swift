import Foundation

extension SQLiteStore {
    /// The metadata of the store file at `url`, read without adding the store: ours (`NSStoreUUIDKey`,
    /// `NSStoreTypeKey`, the model hash) or, for a file Core Data wrote, its property list as it is.
    static func readMetadata(at url: URL) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no store at \(url.path) to read metadata from.",
                                userInfo: [NSFilePathErrorKey: url.path])
        }
        let db = try opening(url.path, "cannot open the database to read its metadata") {
            try SQLiteConnection(path: url.path, readOnly: true)
        }
        let plist = try opening(url.path, "cannot read the store's metadata") {
            try tableExists(db, "Z_METADATA") ? try StoreMetadata.plist(db) : nil
        }
        if let plist, let ours = try? JSONDecoder().decode(StoreMetadata.self, from: plist) {
            return ours.dictionary
        }
        if let plist, let apple = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any] {
            return apple
        }
        throw CoreDataError(NSPersistentStoreInvalidTypeError, "\(url.path) is not a SQLite store: it has no readable metadata.",
                            userInfo: [NSFilePathErrorKey: url.path])
    }
}

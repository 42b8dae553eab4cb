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
        var plist: Data?
        try opening(url.path, "cannot read the store's metadata") {
            guard try tableExists(db, "Z_METADATA") else { return }
            try db.query("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = ?", [.int(1)]) { row in
                if case .data(let d) = row.value(0, as: .binaryDataAttributeType) { plist = d }
            }
        }
        if let plist, let ours = try? JSONDecoder().decode(StoreMetadata.self, from: plist) {
            return [NSStoreUUIDKey: ours.storeUUID, NSStoreTypeKey: ours.storeType, "NSStoreModelVersionHash": ours.versionHash]
        }
        if let plist, let apple = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any] {
            return apple
        }
        throw CoreDataError(NSPersistentStoreInvalidTypeError, "\(url.path) is not a SQLite store: it has no readable metadata.",
                            userInfo: [NSFilePathErrorKey: url.path])
    }
}

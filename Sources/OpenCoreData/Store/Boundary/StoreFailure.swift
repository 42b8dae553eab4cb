import Foundation

/// What kind of failure a store's error reports, in words every store shares, so that contexts and the
/// coordinator decide without reading a database's own codes (only a store's folder reads those).
package enum StoreFailureKind: Sendable, Equatable {
    /// A unique index (a uniqueness constraint, or the primary key) refused a row.
    case uniqueViolation
    /// Another connection holds a lock past the store's timeout, or the transaction must be retried.
    case busy
    /// The store, or its file, cannot be written.
    case readOnly
    /// The store's file or database is not there.
    case missing
    /// The store's data is damaged, or is not a store.
    case corrupt
    /// Anything else (a full disk, an I/O error, bad SQL).
    case other
}

/// A store's own error (``SQLiteError`` for SQLite), kept under `NSUnderlyingErrorKey` of the
/// ``CoreDataError`` the store throws.
package protocol StoreFailure: Error {
    var kind: StoreFailureKind { get }
}

extension CoreDataError {
    /// `NSPersistentStoreIncompatibleVersionHashError`, naming the entities whose hashes differ.
    static func incompatibleModel(_ metadata: [String: Any], model: NSManagedObjectModel, path: String) -> CoreDataError {
        let differing = model.entitiesDiffering(fromStoreMetadata: metadata)
        return CoreDataError(NSPersistentStoreIncompatibleVersionHashError,
                             "The model used to open the store is incompatible with the one used to create the store at \(path): the version hashes of \(differing.joined(separator: ", ")) differ; it was left untouched.",
                             userInfo: [NSFilePathErrorKey: path, "metadata": metadata])
    }

    /// The kind of the store failure beneath this error, if a store's error is beneath it.
    var storeFailure: StoreFailureKind? { (userInfo[NSUnderlyingErrorKey] as? StoreFailure)?.kind }
}

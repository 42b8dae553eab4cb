import Foundation

extension NSPersistentStoreCoordinator {
    /// Mirrors `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`:
    /// makes the SQLite store at `destinationURL` a copy of the one at `sourceURL` (creating it if there is
    /// none), with its externally stored values; the source is only read. The copy is SQLite's online
    /// backup, one transaction on the destination: if it fails, the destination is as it was. Both stores
    /// are SQLite stores; a destination that this coordinator has added is refused (remove it first, then
    /// add it again after the copy), since its objects and cached rows would no longer match the file.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                       withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                       type: NSPersistentStore.StoreType) throws {
        try replacePersistentStore(at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
                                   sourceOptions: sourceOptions, ofType: type.rawValue)
    }

    /// Mirrors `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)`
    /// (the older spelling of ``replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``).
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                       withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                       ofType storeType: String) throws {
        guard let kind = StoreRegistry.kind(for: storeType), kind.needsURL else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "replacePersistentStore copies the library's own store files; \(storeType) is not one")
        }
        guard destinationURL.standardizedFileURL != sourceURL.standardizedFileURL else { return }
        if persistentStore(for: destinationURL) != nil {
            throw CoreDataError(NSPersistentStoreOperationError, "The store at \(destinationURL.path) is added to this coordinator: remove it before replacing its file",
                                userInfo: [NSFilePathErrorKey: destinationURL.path])
        }
        try kind.replace(at: destinationURL, from: sourceURL)
    }
}

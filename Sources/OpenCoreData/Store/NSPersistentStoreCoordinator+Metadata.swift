import Foundation

extension NSPersistentStoreCoordinator {
    /// Mirrors `metadataForPersistentStore(type:at:options:)`: a store file's metadata, read without adding
    /// the store (by the registered class for custom types).
    public class func metadataForPersistentStore(type: NSPersistentStore.StoreType, at url: URL,
                                                 options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try storeClass(for: type.rawValue).metadataForPersistentStore(with: url)
    }

    /// Mirrors `setMetadata(_:type:at:options:)`: writes a store file's metadata without adding the store
    /// (custom types through their class; a SQLite store's metadata table is issue #33's, and throws here).
    public class func setMetadata(_ metadata: [String: Any]?, type: NSPersistentStore.StoreType, at url: URL,
                                  options: [AnyHashable: Any]? = nil) throws {
        try storeClass(for: type.rawValue).setMetadata(metadata, forPersistentStoreAt: url)
    }

    /// Mirrors `metadata(for:)`: the metadata of one of this coordinator's stores.
    public func metadata(for store: NSPersistentStore) -> [String: Any] { store.metadata ?? [:] }

    /// Mirrors `setMetadata(_:for:)`: replaces a store's metadata (an atomic store writes it with its
    /// next save; see ``NSPersistentStore/metadata`` for the SQLite store).
    public func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        store.metadata = metadata ?? [:]
    }

    /// Mirrors `setURL(_:for:)`: points a store at another file. Only custom stores can move (an atomic
    /// store writes its next save there); for the SQLite store, whose connections hold its file, it
    /// returns false and nothing changes.
    public func setURL(_ url: URL, for store: NSPersistentStore) -> Bool {
        guard persistentStores.contains(where: { $0 === store }), store.backend is AtomicStoreBackend else { return false }
        store.url = url
        return true
    }

    /// The class that reads and writes files of a store type.
    private class func storeClass(for type: String) throws -> NSPersistentStore.Type {
        if type == NSSQLiteStoreType { return NSPersistentStore.self }
        guard let storeClass = registeredClass(for: type) else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "Unknown store type \(type)")
        }
        return storeClass
    }
}

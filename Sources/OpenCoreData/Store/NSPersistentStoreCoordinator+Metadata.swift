import Foundation

extension NSPersistentStoreCoordinator {
    /// Mirrors `metadataForPersistentStore(type:at:options:)`: a store file's metadata, read without adding
    /// the store (by the registered class for custom types).
    public class func metadataForPersistentStore(type: NSPersistentStore.StoreType, at url: URL,
                                                 options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try readMetadata(ofType: type.rawValue, at: url)
    }

    /// Mirrors `setMetadata(_:type:at:options:)`: writes a store file's metadata without adding the store
    /// (a SQLite file's `Z_METADATA` in one transaction, Core Data's own keys kept where the dictionary
    /// lacks them; custom types through their class).
    public class func setMetadata(_ metadata: [String: Any]?, type: NSPersistentStore.StoreType, at url: URL,
                                  options: [AnyHashable: Any]? = nil) throws {
        try writeMetadata(metadata, ofType: type.rawValue, at: url)
    }

    /// Mirrors `metadataForPersistentStore(ofType:at:options:)`, the older spelling of
    /// ``metadataForPersistentStore(type:at:options:)``.
    public class func metadataForPersistentStore(ofType storeType: String, at url: URL,
                                                 options: [AnyHashable: Any]?) throws -> [String: Any] {
        try readMetadata(ofType: storeType, at: url)
    }

    /// Mirrors `metadataForPersistentStore(ofType:at:)`: with a `nil` type, the file is read as a SQLite
    /// store (the only file type built in).
    public class func metadataForPersistentStore(ofType storeType: String?, at url: URL) throws -> [String: Any] {
        try readMetadata(ofType: storeType ?? NSSQLiteStoreType, at: url)
    }

    /// Mirrors `metadataForPersistentStore(with:)`, the oldest spelling: a SQLite store file's metadata.
    public class func metadataForPersistentStore(with url: URL) throws -> [AnyHashable: Any] {
        try NSPersistentStore.metadataForPersistentStore(with: url)
    }

    /// Mirrors `setMetadata(_:forPersistentStoreOfType:at:options:)`, the older spelling of
    /// ``setMetadata(_:type:at:options:)``.
    public class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL,
                                  options: [AnyHashable: Any]?) throws {
        try writeMetadata(metadata, ofType: storeType, at: url)
    }

    /// Mirrors `setMetadata(_:forPersistentStoreOfType:at:)`: a `nil` type writes a SQLite store file.
    public class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String?, at url: URL) throws {
        try writeMetadata(metadata, ofType: storeType ?? NSSQLiteStoreType, at: url)
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

    /// The metadata of a store that is not added, read as its type reads it.
    private class func readMetadata(ofType type: String, at url: URL) throws -> [String: Any] {
        switch StoreRegistry.entry(for: try StoreRegistry.type(type, at: url)) {
        case .kind(let kind): return try kind.metadata(at: url)
        case .storeClass(let storeClass): return try storeClass.metadataForPersistentStore(with: url)
        case nil: throw CoreDataError(NSPersistentStoreInvalidTypeError, "Unknown store type \(type)")
        }
    }

    /// Writes the metadata of a store that is not added, as its type writes it.
    private class func writeMetadata(_ metadata: [String: Any]?, ofType type: String, at url: URL) throws {
        switch StoreRegistry.entry(for: try StoreRegistry.type(type, at: url)) {
        case .kind(let kind): try kind.setMetadata(metadata ?? [:], at: url)
        case .storeClass(let storeClass): try storeClass.setMetadata(metadata, forPersistentStoreAt: url)
        case nil: throw CoreDataError(NSPersistentStoreInvalidTypeError, "Unknown store type \(type)")
        }
    }
}

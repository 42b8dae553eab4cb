import Foundation

extension NSPersistentStoreCoordinator {
    /// Mirrors `migratePersistentStore(_:to:options:type:)`: copies the store to a new SQLite file at `url`
    /// (a "Save As"), adds that one with `options` and removes `store`, returning the new store. The copy
    /// is SQLite's online backup through the store's own connection, so an in-memory store can be saved
    /// to a file too; the old file is left as it was. The new store keeps the old one's UUID, so the
    /// contexts' objects go on working against the new file. Only the SQLite and in-memory stores can be
    /// copied this way, to a SQLite file that does not exist yet; anything else throws, and nothing changes.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                       type: NSPersistentStore.StoreType) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: type.rawValue)
    }

    /// Mirrors `migratePersistentStore(_:to:options:withType:)` (the older spelling of
    /// ``migratePersistentStore(_:to:options:type:)``).
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                       withType storeType: String) throws -> NSPersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError(NSPersistentStoreOperationError, "The store at \(store.url?.path ?? "?") is not one of this coordinator's stores.")
        }
        guard let source = store.backend as? CopyableStore, source.copyType == storeType else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "migratePersistentStore copies the library's own stores into a store file; from \(store.type) to \(storeType) is not supported")
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size > 0 {
            throw CoreDataError(NSPersistentStoreOperationError, "A file exists at \(url.path); the store was not migrated onto it",
                                userInfo: [NSFilePathErrorKey: url.path])
        }
        try source.copy(to: url)
        let (oldType, oldURL, oldOptions, configuration) = (store.type, store.url, store.options, Self.configuration(of: store))
        try remove(store)
        do {
            return try addPersistentStore(ofType: storeType, configurationName: configuration, at: url, options: options)
        } catch {
            _ = try? addPersistentStore(ofType: oldType, configurationName: configuration, at: oldURL, options: oldOptions)
            try? FileManager.default.removeItem(at: url)
            throw error
        }
    }

    private static func configuration(of store: NSPersistentStore) -> String? {
        store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName
    }
}

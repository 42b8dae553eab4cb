import Foundation

extension NSPersistentStoreCoordinator {
    /// Mirrors `registerStoreClass(_:type:)`: stores added as `type` are made of `storeClass` (a subclass of
    /// ``NSAtomicStore`` or ``NSIncrementalStore``); `nil` removes the registration. A class that is not
    /// a persistent store class is ignored, as Core Data ignores it.
    public class func registerStoreClass(_ storeClass: AnyClass?, type: NSPersistentStore.StoreType) {
        registerStoreClass(storeClass, forStoreType: type.rawValue)
    }

    /// Mirrors `registerStoreClass(_:forStoreType:)`, the string spelling of ``registerStoreClass(_:type:)``.
    public class func registerStoreClass(_ storeClass: AnyClass?, forStoreType storeType: String) {
        StoreRegistry.register(storeClass.flatMap { $0 as? NSPersistentStore.Type }, type: storeType)
    }

    /// Mirrors `registeredStoreTypes`: the registered store classes by type, each in an `NSValue` holding
    /// the class's pointer as Core Data's do. Linux's `NSValue` has no `pointerValue`: read it with
    /// `var bits: UInt64 = 0; value.getValue(&bits)` and `unsafeBitCast(UnsafeRawPointer(bitPattern: UInt(bits)), to: AnyClass.self)`.
    /// The SQLite and in-memory types are built in and listed too.
    public class var registeredStoreTypes: [String: NSValue] {
        StoreRegistry.all.mapValues { entry in
            var storeClass: NSPersistentStore.Type = NSPersistentStore.self
            if case .storeClass(let registered) = entry { storeClass = registered }
            var bits = UInt64(UInt(bitPattern: unsafeBitCast(storeClass as AnyClass, to: UnsafeRawPointer.self)))
            return NSValue(bytes: &bits, objCType: "Q")
        }
    }

    /// The type a class is registered for (the first, by name, when it is registered for several).
    static func registeredType(of storeClass: NSPersistentStore.Type) -> String? {
        StoreRegistry.all.filter { _, entry in
            if case .storeClass(let registered) = entry { return registered == storeClass }
            return false
        }.keys.min()
    }

    /// Makes, loads and attaches a store of a registered class: its metadata read (`loadMetadata()`),
    /// then its adapter made (an atomic store loads its records).
    func makeCustomStore(_ storeClass: NSPersistentStore.Type, type: String, configuration: String?, url: URL?,
                         options: [AnyHashable: Any]?) throws -> NSPersistentStore {
        guard let url else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "A store of type \(type) needs a URL")
        }
        if let (entity, attribute) = managedObjectModel.firstCompositeAttribute {
            throw CoreDataError(NSPersistentStoreInvalidTypeError,
                                "A store of type \(type) cannot hold composite attributes (\(entity).\(attribute)): as in Core Data, they are available to SQLite stores only")
        }
        let store = storeClass.init(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
        store.storedType = type
        try store.loadMetadata()
        if let stored = store.metadata?[NSStoreTypeKey] as? String, stored != type {
            throw CoreDataError(NSPersistentStoreTypeMismatchError, "The store at \(url.path) is of type \(stored), not \(type).",
                                userInfo: [NSFilePathErrorKey: url.path])
        }
        try checkModelVersion(of: store, configuration: configuration, options: options)
        switch store {
        case let atomic as NSAtomicStore: store.attach(try AtomicStoreBackend(atomic, model: managedObjectModel))
        case let incremental as NSIncrementalStore: store.attach(try IncrementalStoreBackend(incremental, model: managedObjectModel))
        default:
            throw CoreDataError(NSPersistentStoreInvalidTypeError,
                                "\(storeClass) (registered for \(type)) is neither an NSAtomicStore nor an NSIncrementalStore subclass")
        }
        return store
    }

    /// The model an app's store was made with, against this coordinator's: a store whose metadata records
    /// other version hashes is refused with `NSPersistentStoreIncompatibleVersionHashError` (as Core Data
    /// refuses it; these stores do not migrate in place), unless `NSIgnorePersistentStoreVersioningOption`.
    /// A store whose metadata records none cannot tell, and opens (the built-in binary and XML stores record
    /// them; an app's store records what its `loadMetadata()` sets).
    private func checkModelVersion(of store: NSPersistentStore, configuration: String?, options: [AnyHashable: Any]?) throws {
        guard let metadata = store.metadata, metadata[NSStoreModelVersionHashesKey] != nil else { return }
        guard !StoreOptionValue.flag(options?[NSIgnorePersistentStoreVersioningOption]),
              !managedObjectModel.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) else { return }
        let differing = managedObjectModel.entitiesDiffering(fromStoreMetadata: metadata)
        throw CoreDataError(NSPersistentStoreIncompatibleVersionHashError,
                            "The model used to open the store is incompatible with the one used to create the store at \(store.url?.path ?? "?") (a store of type \(store.type), which does not migrate in place): the version hashes of \(differing.joined(separator: ", ")) differ; it was left untouched.",
                            userInfo: [NSFilePathErrorKey: store.url?.path ?? "", "metadata": metadata])
    }
}

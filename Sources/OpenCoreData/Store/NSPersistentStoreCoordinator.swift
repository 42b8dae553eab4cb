import Foundation
import Logging
import Synchronization

/// Mirrors Core Data's `NSPersistentStoreCoordinator`: the model and the store(s) behind one or more
/// contexts. It serializes access to the store. One store per coordinator (configurations that split
/// entities across stores are not supported yet).
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    /// Mirrors `managedObjectModel`.
    public let managedObjectModel: NSManagedObjectModel
    private var stores: [NSPersistentStore] = []
    /// Whether the store is an ``NSIncrementalStore`` (its methods are handed the reading context).
    private(set) var hasIncrementalStore = false
    let lock = NSRecursiveLock()
    /// Rows last read or written, shared by every context of this coordinator (see `+Rows`).
    let rowCache = RowCache()
    /// The queue of `perform(_:)` / `performAndWait(_:)`.
    let queue = DispatchQueue(label: "NSPersistentStoreCoordinator")

    /// Mirrors `init(managedObjectModel:)`. Traps if the model is invalid (Core Data raises); use
    /// ``init(validatingModel:)`` to get the error.
    public convenience init(managedObjectModel model: NSManagedObjectModel) {
        do { try self.init(validatingModel: model) } catch { fatalError("\(error)") }
    }

    /// Validates the model (names, inheritance) and throws what is wrong. Not in Core Data.
    public init(validatingModel model: NSManagedObjectModel) throws {
        try model.freeze()
        self.managedObjectModel = model
        super.init()
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// A coordinator whose model did not validate (a container reports the error when it loads its
    /// stores); adding a store to it throws that error.
    init(unvalidatedModel model: NSManagedObjectModel) {
        self.managedObjectModel = model
        super.init()
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// Mirrors `name`: a name for the coordinator, shown in debugging output (`nil` unless set).
    public var name: String?

    /// Mirrors `persistentStores`.
    public var persistentStores: [NSPersistentStore] { lock.withLock { stores } }

    /// Mirrors `addPersistentStore(ofType:configurationName:at:options:)`.
    @discardableResult
    public func addPersistentStore(ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
                                   options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        let custom = Self.registeredClass(for: storeType)
        guard storeType == NSSQLiteStoreType || storeType == NSInMemoryStoreType || custom != nil else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "Unknown store type \(storeType)")
        }
        if storeType == NSSQLiteStoreType, storeURL == nil {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "A SQLite store needs a URL")
        }
        try managedObjectModel.freeze()
        let store = try lock.withLock {
            guard stores.isEmpty else {
                throw CoreDataError(NSPersistentStoreOperationError, "This coordinator already has a store; one store per coordinator is supported")
            }
            let store: NSPersistentStore
            if let custom {
                store = try makeCustomStore(custom, type: storeType, configuration: configuration, url: storeURL, options: options)
            } else {
                let debug = (options?["OpenCoreDataSQLDebug"] as? Bool) ?? SQLDebug.isEnabled
                store = try NSPersistentStore(type: storeType, url: storeURL, options: options, model: managedObjectModel, coordinator: self,
                                              logger: debug ? SQLDebug.logger : nil)
            }
            stores.append(store)
            NSPersistentStore.addedStores.withLock { $0[store.identifier ?? ""] = WeakStore(store) }
            hasIncrementalStore = store is NSIncrementalStore
            return store
        }
        store.didAdd(to: self)
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self,
                                        userInfo: [NSAddedPersistentStoresKey: [store]])
        return store
    }

    /// Mirrors `addPersistentStore(with:completionHandler:)`. The handler runs before this returns.
    public func addPersistentStore(with storeDescription: NSPersistentStoreDescription,
                                   completionHandler block: (NSPersistentStoreDescription, (any Error)?) -> Void) {
        do {
            try addPersistentStore(ofType: storeDescription.type, configurationName: storeDescription.configuration,
                                   at: storeDescription.url, options: storeDescription.options)
            block(storeDescription, nil)
        } catch {
            block(storeDescription, error)
        }
    }

    /// Whether fetches evaluate block predicates (`NSPredicate(block:)`) in memory, as Core Data's
    /// in-memory store does; the SQLite store refuses them.
    var evaluatesBlockPredicates: Bool { persistentStores.first?.type == NSInMemoryStoreType }

    /// Mirrors `remove(_:)`: posts `NSPersistentStoreCoordinatorWillRemoveStore` (the store as object) and
    /// `NSPersistentStoreCoordinatorStoresWillChange` before, `NSPersistentStoreCoordinatorStoresDidChange`
    /// after (`NSRemovedPersistentStoresKey`). A store this coordinator does not hold throws.
    public func remove(_ store: NSPersistentStore) throws {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError(NSPersistentStoreOperationError, "The store at \(store.url?.path ?? "?") is not one of this coordinator's stores.")
        }
        let center = NotificationCenter.default
        center.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
        center.post(name: .NSPersistentStoreCoordinatorStoresWillChange, object: self, userInfo: [NSRemovedPersistentStoresKey: [store]])
        store.willRemove(from: self)
        lock.withLock {
            stores.removeAll { $0 === store }
            hasIncrementalStore = false
        }
        center.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: [NSRemovedPersistentStoresKey: [store]])
    }

    /// Mirrors `managedObjectID(forURIRepresentation:)`.
    public func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard let store = persistentStores.first, url.scheme == "x-coredata", url.host == store.identifier else { return nil }
        let parts = url.path.split(separator: "/")
        guard parts.count == 2, let entity = managedObjectModel.entitiesByName[String(parts[0])],
              parts[1].hasPrefix("p"), let pk = Int64(parts[1].dropFirst()) else { return nil }
        return NSManagedObjectID(entity: entity, key: .permanent(root: entity.layout.rootEntityID, pk: pk), storeIdentifier: store.identifier)
    }

    /// The store every request goes to.
    func store() throws -> NSPersistentStore {
        guard let store = persistentStores.first else {
            throw CoreDataError(NSPersistentStoreOperationError, "The coordinator has no persistent store: call loadPersistentStores or addPersistentStore first.")
        }
        return store
    }
}

/// A Core Data debug switch as launched: `argument N` on the command line (as Core Data's launch arguments,
/// on when N > 0), else `environment=N`.
func debugSwitch(_ argument: String, environment: String) -> Bool {
    let arguments = CommandLine.arguments
    if let i = arguments.firstIndex(of: argument), i + 1 < arguments.count {
        return (Int(arguments[i + 1]) ?? 0) > 0
    }
    return (Int(ProcessInfo.processInfo.environment[environment] ?? "") ?? 0) > 0
}

/// Core Data's SQL debug switch: `-com.apple.CoreData.SQLDebug 1` on the command line (as Core Data's
/// launch argument) or `OPENCOREDATA_SQL_DEBUG=1` in the environment. SQL statements, their argument
/// types (never values) and fetch timings go to swift-log's logger `OpenCoreData.SQL` at debug level.
public enum SQLDebug {
    private static let state = Mutex<Bool>(debugSwitch("-com.apple.CoreData.SQLDebug", environment: "OPENCOREDATA_SQL_DEBUG"))

    /// Whether SQL logging is on for stores added from now on. Set it in code, or see the type's comment.
    public static var isEnabled: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    static var logger: Logger {
        var logger = Logger(label: "OpenCoreData.SQL")
        logger.logLevel = .debug
        return logger
    }
}

import Foundation
import Logging
import Synchronization

/// Mirrors Core Data's `NSPersistentStoreCoordinator`: the model and the stores behind one or more
/// contexts. It serializes access to the stores. Each store holds the entities of the configuration it
/// was added with (every entity without one); requests, saves and object IDs go to the store that holds
/// their entity (see `+Routing`).
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    /// Mirrors `managedObjectModel`. (Set once, by an initializer: a `var` only so that the coordinator
    /// a container makes for a model that does not validate comes from a convenience initializer.)
    public private(set) var managedObjectModel: NSManagedObjectModel
    private var stores: [NSPersistentStore] = []
    /// The store of each entity hierarchy.
    var routes = StoreRoutes()
    /// Whether a store is an ``NSIncrementalStore`` (its methods are handed the reading context).
    private(set) var hasIncrementalStore = false
    /// Whether a store has a tag (``NSPersistentStore/keyTag``: it shared a hierarchy with another store
    /// when it was added), so that objects' keys must be asked which store they are of.
    private(set) var hasTaggedStores = false
    let lock = NSRecursiveLock()
    /// Rows last read or written, shared by every context of this coordinator (see `+Rows`).
    let rowCache = RowCache()
    /// ``postsChangeSets``.
    let changeSets = LockedValue(true)
    /// The contexts on this coordinator that merge the others' saves (``NSManagedObjectContext/automaticallyMergesChangesFromParent``).
    let mergingContexts = SaveListeners()
    /// The queue of `perform(_:)` / `performAndWait(_:)`.
    let queue = DispatchQueue(label: "NSPersistentStoreCoordinator")

    /// Mirrors `init(managedObjectModel:)`. Traps if the model is invalid (Core Data raises); use
    /// ``init(validatingModel:)`` to get the error. `required`, so that a subclass or an extension reaches
    /// it through a metatype (`self.init(managedObjectModel:)` in a `static func`), as Objective-C lets
    /// Core Data's.
    public required convenience init(managedObjectModel model: NSManagedObjectModel) {
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
    /// stores); adding a store to it throws that error. A convenience initializer (made with an empty
    /// model, then given this one): a designated initializer that is not public would keep subclasses in
    /// other modules from inheriting the `required` ``init(managedObjectModel:)``.
    convenience init(unvalidatedModel model: NSManagedObjectModel) {
        do { try self.init(validatingModel: NSManagedObjectModel()) } catch { fatalError("an empty model validates: \(error)") }
        managedObjectModel = model
    }

    /// Mirrors `name`: a name for the coordinator, shown in debugging output (`nil` unless set).
    public var name: String?

    /// Mirrors `persistentStores`.
    public var persistentStores: [NSPersistentStore] { lock.withLock { stores } }

    /// Mirrors `addPersistentStore(ofType:configurationName:at:options:)`.
    @discardableResult
    public func addPersistentStore(ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
                                   options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addPersistentStore(ofType: storeType, configurationName: configuration, at: storeURL, options: options, knownSource: nil)
    }

    /// ``addPersistentStore(ofType:configurationName:at:options:)``; a store that migrates tries
    /// `knownSource` first as its source model (a staged migration's current stage).
    @discardableResult
    func addPersistentStore(ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
                            options: [AnyHashable: Any]?, knownSource: NSManagedObjectModel?) throws -> NSPersistentStore {
        let storeType = try StoreRegistry.type(storeType, at: storeURL)
        guard let entry = StoreRegistry.entry(for: storeType) else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "Unknown store type \(storeType)")
        }
        if case .kind(let kind) = entry, kind.needsURL, storeURL == nil {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "A store of type \(storeType) needs a URL")
        }
        try managedObjectModel.freeze()
        if case .kind(let kind) = entry, kind.runsStagedMigrations, let storeURL,
           let staged = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager {
            try staged.migrateStore(at: storeURL, options: options, to: managedObjectModel)
        }
        let store = try lock.withLock {
            let roots = try routes.checkAdding(configuration, of: managedObjectModel, url: storeURL)
            if let storeURL, let added = stores.first(where: { $0.url?.standardizedFileURL == storeURL.standardizedFileURL }) {
                throw CoreDataError(NSPersistentStoreOperationError,
                                    "The store at \(storeURL.path) is added to this coordinator already (configuration \(added.configurationName)): a file is one store of a coordinator.",
                                    userInfo: [NSFilePathErrorKey: storeURL.path])
            }
            let store: NSPersistentStore
            switch entry {
            case .storeClass(let custom):
                store = try makeCustomStore(custom, type: storeType, configuration: configuration, url: storeURL, options: options)
            case .kind(let kind):
                let debug = (options?["OpenCoreDataSQLDebug"] as? Bool) ?? SQLDebug.isEnabled
                store = try NSPersistentStore(kind, type: storeType, configuration: configuration, url: storeURL, options: options,
                                              model: managedObjectModel, knownSource: knownSource, coordinator: self,
                                              logger: debug ? SQLDebug.logger : nil)
            }
            stores.append(store)
            routes.add(store, roots: roots, of: managedObjectModel)
            NSPersistentStore.addedStores.withLock { $0[store.identifier ?? ""] = WeakStore(store) }
            hasIncrementalStore = stores.contains { $0 is NSIncrementalStore }
            hasTaggedStores = stores.contains { $0.keyTag != 0 }
            return store
        }
        store.didAdd(to: self)
        if StoreOptionValue.flag(options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey]) {
            try store.watchRemoteChanges(for: self)
        }
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
    /// in-memory store does (every store of the coordinator is in memory); the SQLite store refuses them.
    var evaluatesBlockPredicates: Bool {
        let stores = persistentStores
        return !stores.isEmpty && stores.allSatisfy { $0.type == NSInMemoryStoreType }
    }

    /// Mirrors `remove(_:)`: posts `NSPersistentStoreCoordinatorWillRemoveStore` (the store as object) and
    /// `NSPersistentStoreCoordinatorStoresWillChange` before, `NSPersistentStoreCoordinatorStoresDidChange`
    /// after (`NSRemovedPersistentStoresKey`). A store this coordinator does not hold throws (the store under
    /// `NSAffectedStoresErrorKey`).
    public func remove(_ store: NSPersistentStore) throws {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError(NSPersistentStoreOperationError, "The store at \(store.url?.path ?? "?") is not one of this coordinator's stores.",
                                userInfo: [NSAffectedStoresErrorKey: [store]])
        }
        let center = NotificationCenter.default
        center.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
        center.post(name: .NSPersistentStoreCoordinatorStoresWillChange, object: self, userInfo: [NSRemovedPersistentStoresKey: [store]])
        store.willRemove(from: self)
        store.remoteChangeWatch?.stop()
        store.remoteChangeWatch = nil
        lock.withLock {
            stores.removeAll { $0 === store }
            routes.remove(store, of: managedObjectModel)
            // A store added later may take its tag: none of its rows may be read as that store's.
            rowCache.removeAll()
            hasIncrementalStore = stores.contains { $0 is NSIncrementalStore }
            hasTaggedStores = stores.contains { $0.keyTag != 0 }
        }
        center.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: [NSRemovedPersistentStoresKey: [store]])
    }

    /// Mirrors `managedObjectID(forURIRepresentation:)`: `nil` unless the URI names one of the stores and an
    /// entity that store holds.
    public func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata", let host = url.host else { return nil }
        let parts = url.path.split(separator: "/")
        guard parts.count == 2, let entity = managedObjectModel.entitiesByName[String(parts[0])],
              parts[1].hasPrefix("p"), let pk = Int64(parts[1].dropFirst()),
              let store = storesHolding(entity.layout.rootEntityID).first(where: { $0.identifier == host }) else { return nil }
        let root = ObjectKey.keyRoot(entity.layout.rootEntityID, tag: store.keyTag)
        return NSManagedObjectID(entity: entity, key: .permanent(root: root, pk: pk), storeIdentifier: store.identifier)
    }

    /// The store of a key root: a hierarchy's root entity number with the store's tag (`ObjectKey.keyRoot`;
    /// the entity number alone for a store of tag 0).
    func store(root: Int) throws -> NSPersistentStore {
        try lock.withLock {
            if let store = routes.store(keyRoot: root) { return store }
            throw stores.isEmpty
                ? CoreDataError(NSPersistentStoreOperationError, "The coordinator has no persistent store: call loadPersistentStores or addPersistentStore first.")
                : CoreDataError(NSPersistentStoreOperationError,
                                "No persistent store of the coordinator holds entity \(managedObjectModel.entity(number: ObjectKey.entityRoot(root))?.name ?? "\(root)")"
                                + (ObjectKey.tag(root) == 0 ? ": no store was added with a configuration that has it." : " under store tag \(ObjectKey.tag(root)) (its store was removed)."))
        }
    }

    /// The identifier (UUID) of the store of a key root: object IDs of its rows carry it (empty when no
    /// store holds it: nothing of it is read from a store).
    func storeIdentifier(root: Int) throws -> String {
        if let store = storeIfAny(root: root) { return store.backend.identifier }
        if persistentStores.isEmpty { _ = try self.store(root: root) }  // no store at all: the error says so
        return ""
    }

    /// The identifier of the store, when one store holds every entity.
    var soleStoreIdentifier: String? { lock.withLock { routes.onlyStore?.backend.identifier } }

    /// The store of a key root, `nil` when none.
    func storeIfAny(root: Int) -> NSPersistentStore? { lock.withLock { routes.store(keyRoot: root) } }
}

import Foundation
import OpenCoreData
import Synchronization

/// What the rest of OpenSwiftData sees of a custom store's bridge, whatever the store's type.
protocol DataStoreBridging: AnyObject {
    /// The data store's identifier.
    var dataStoreIdentifier: String { get }
    /// The identifier the store knows an object by.
    func persistentIdentifier(for objectID: NSManagedObjectID) -> PersistentIdentifier
    /// The object ID of an identifier of this store (`nil` for an entity the container does not have).
    func objectID(for identifier: PersistentIdentifier) -> NSManagedObjectID?
    /// `DataStore.erase()`.
    func eraseStore() throws
    /// `initializeState(for:)` / `invalidateState(for:)`.
    func contextBegan(_ state: EditingState)
    func contextEnded(_ state: EditingState)
    /// Whether the store deletes by predicate itself (``DataStoreBatching``).
    var batchesDeletes: Bool { get }
    /// `DataStoreBatching.delete(_:)` (only asked when ``batchesDeletes``).
    func batchDelete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws
    /// The objects whose values the store changed in the last save (`snapshotsToReregister`), handed out once.
    func takeReregistered() -> [NSManagedObjectID]
    /// `HistoryProviding.fetchHistory(_:)` (or, when `delete`, `deleteHistory(_:)`), when the store keeps a
    /// history of `T`; `nil` when it does not.
    func history<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>, delete: Bool) throws -> [T]?
}

/// A custom ``DataStore`` as a store of the container's Core Data coordinator (an `NSIncrementalStore`):
/// contexts fetch, fault and save through it as through any store, and it turns each request into the
/// data store's: fetches into `fetch(_:)` with the context's ``FetchDescriptor`` (``BridgedFetch``), object
/// values into snapshots, saves into `save(_:)`. Objects are known to Core Data by the identifier the
/// data store gave them (their reference objects); an inserted object goes by the temporary identifier of
/// its first save's request, which maps to the permanent one the store returned.
///
/// Versions (for optimistic locking): an object read for the first time has version 1; when the store
/// answers with different values for it than last time, the version goes up by one.
final class DataStoreBridge<Store: DataStore>: NSIncrementalStore, DataStoreBridging, @unchecked Sendable {
    /// The option key under which the container hands the bridge its data store.
    static var storeOption: String { "OpenSwiftData.DataStore" }
    /// The store type the bridge class is registered under.
    static var storeType: String { "OpenSwiftData.DataStore.\(String(reflecting: Store.self))" }

    let dataStore: Store
    /// The container's schema (the model types of the store's entities).
    let schema: Schema
    /// The coordinator's entities by name.
    private let entities: [String: NSEntityDescription]
    private let lock = NSLock()
    private var state = State()

    struct State {
        /// A temporary identifier's permanent one, and back.
        var permanent: [PersistentIdentifier: PersistentIdentifier] = [:]
        var reference: [PersistentIdentifier: PersistentIdentifier] = [:]
        /// The hash of each object's last values, and its version.
        var versions: [PersistentIdentifier: (hash: Int, version: UInt64)] = [:]
        /// Snapshots the last request returned, for the nodes read right after it.
        var recent: [PersistentIdentifier: DefaultSnapshot] = [:]
        var reregistered: [NSManagedObjectID] = []
    }

    required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                  at url: URL, options: [AnyHashable: Any]? = nil) {
        guard let setup = options?[Self.storeOption] as? BridgeSetup<Store> else {
            preconditionFailure("a DataStoreBridge is made by ModelContainer, with its data store in the options")
        }
        (dataStore, schema) = (setup.store, setup.schema)
        entities = root?.managedObjectModel.entitiesByName ?? [:]
        DataStoreBridges.made()
        super.init(persistentStoreCoordinator: root, configurationName: name, at: url, options: options)
    }

    override func loadMetadata() throws {
        // The bridge's own identifier: Core Data finds a store by it process-wide, and two containers may
        // open data stores with one identifier (one file). Models show the data store's identifiers.
        metadata = [NSStoreTypeKey: Self.storeType, NSStoreUUIDKey: bridgeIdentity.uuidString]
    }

    var dataStoreIdentifier: String { dataStore.identifier }

    func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    // MARK: Identifiers

    func persistentIdentifier(for objectID: NSManagedObjectID) -> PersistentIdentifier {
        guard let reference = referenceObject(for: objectID) as? PersistentIdentifier else {
            preconditionFailure("\(objectID) was not made by the data store bridge")
        }
        return withState { $0.permanent[reference] } ?? reference
    }

    func objectID(for identifier: PersistentIdentifier) -> NSManagedObjectID? {
        guard let entity = entities[identifier.entityName] else { return nil }
        let reference = withState { $0.reference[identifier] } ?? identifier
        return newObjectID(for: entity, referenceObject: reference)
    }

    // MARK: Snapshots

    /// A store snapshot as a ``DefaultSnapshot`` (through its `Codable` form unless it is one).
    func defaultSnapshot(_ snapshot: Store.Snapshot) throws -> DefaultSnapshot {
        if let snapshot = snapshot as? DefaultSnapshot { return snapshot }
        return try JSONDecoder().decode(DefaultSnapshot.self, from: JSONEncoder().encode(snapshot))
    }

    /// A ``DefaultSnapshot`` as the store's snapshot type.
    func storeSnapshot(_ snapshot: DefaultSnapshot) throws -> Store.Snapshot {
        if let snapshot = snapshot as? Store.Snapshot { return snapshot }
        return try JSONDecoder().decode(Store.Snapshot.self, from: JSONEncoder().encode(snapshot))
    }

    /// The version of an object whose store values are `snapshot` (see the class comment).
    func version(of snapshot: DefaultSnapshot) -> UInt64 {
        let hash = snapshot.hashValue
        return withState { state in
            let id = snapshot.persistentIdentifier
            guard let known = state.versions[id] else {
                state.versions[id] = (hash, 1)
                return 1
            }
            if known.hash == hash { return known.version }
            state.versions[id] = (hash, known.version + 1)
            return known.version + 1
        }
    }

    /// The editing state of the context a request comes from (the store's own when no model context asks).
    func editingState(_ context: NSManagedObjectContext?) -> EditingState {
        ModelContext.owner(of: context)?.editingState ?? EditingState(id: bridgeIdentity, author: nil)
    }

    private let bridgeIdentity = UUID()

    // MARK: Requests (DataStoreBridge+Execute.swift)

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        try answer(request, with: context)
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] { temporaryIDs(for: array) }

    // MARK: Nodes

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        let id = persistentIdentifier(for: objectID)
        guard let snapshot = try currentSnapshot(id, context) else {
            throw CoreDataError(NSManagedObjectReferentialIntegrityError, "\(id.entityName) \(id.id.uri) is not in the data store \(dataStore.identifier)")
        }
        return NSIncrementalStoreNode(objectID: objectID, withValues: try nodeValues(snapshot, objectID.entity), version: version(of: snapshot))
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                           with context: NSManagedObjectContext?) throws -> Any {
        let id = persistentIdentifier(for: objectID)
        guard let snapshot = try currentSnapshot(id, context, cached: true) else {
            throw CoreDataError(NSManagedObjectReferentialIntegrityError, "\(id.entityName) \(id.id.uri) is not in the data store \(dataStore.identifier)")
        }
        switch snapshot.values[relationship.name] {
        case .model(let destination)?: return try destinationID(destination)
        case .models(let destinations)?: return try destinations.map(destinationID)
        default: return relationship.isToMany ? [NSManagedObjectID]() : NSNull()
        }
    }

    private func destinationID(_ identifier: PersistentIdentifier) throws -> NSManagedObjectID {
        guard let id = objectID(for: identifier) else {
            throw CoreDataError(NSPersistentStoreOperationError, "the data store \(dataStore.identifier) refers to \(identifier.entityName), which the container's schema does not have")
        }
        return id
    }

    /// The values of a node: attributes as stored, to-one relationships as object IDs (to-many ones are
    /// asked when first read).
    private func nodeValues(_ snapshot: DefaultSnapshot, _ entity: NSEntityDescription) throws -> [String: Any] {
        var values: [String: Any] = [:]
        for (name, value) in snapshot.values {
            switch value {
            case .model(let destination): values[name] = try destinationID(destination)
            case .models: continue
            case .null: values[name] = NSNull()
            default: values[name] = value.stored
            }
        }
        return values
    }

    /// The store's values for `id` now: those the last fetch returned, else (for a relationship, when
    /// `cached`) the store's cached ones, else a fetch of that one model (or, for a store that does not
    /// filter, of all of its type). Object values (and so the versions a save compares) are never taken
    /// from the store's cache.
    func currentSnapshot(_ id: PersistentIdentifier, _ context: NSManagedObjectContext?, cached: Bool = false) throws -> DefaultSnapshot? {
        if let recent = withState({ $0.recent.removeValue(forKey: id) }) { return recent }
        let editing = editingState(context)
        if cached, let snapshot = try dataStore.cachedSnapshots(for: [id], editingState: editing)[id] { return try defaultSnapshot(snapshot) }
        guard let type = schema.modelType(named: id.entityName) else { return nil }
        return try fetchOne(type, id, editing)
    }

    private func fetchOne<T: PersistentModel>(_: T.Type, _ id: PersistentIdentifier, _ editing: EditingState) throws -> DefaultSnapshot? {
        let byIdentifier = FetchDescriptor<T>(predicate: #Predicate { $0.persistentModelID == id })
        do {
            let found = try dataStore.fetch(DataStoreFetchRequest(descriptor: byIdentifier, editingState: editing)).fetchedSnapshots
            return try found.map(defaultSnapshot).first { $0.persistentIdentifier == id }
        } catch DataStoreError.preferInMemoryFilter, DataStoreError.preferInMemorySort {
            let all = try dataStore.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>(), editingState: editing)).fetchedSnapshots.map(defaultSnapshot)
            withState { state in for snapshot in all where snapshot.persistentIdentifier != id { state.recent[snapshot.persistentIdentifier] = snapshot } }
            return all.first { $0.persistentIdentifier == id }
        }
    }

    // MARK: Store-wide

    func eraseStore() throws {
        try dataStore.erase()
        withState { $0 = State() }
    }

    func contextBegan(_ state: EditingState) { dataStore.initializeState(for: state) }
    func contextEnded(_ state: EditingState) { dataStore.invalidateState(for: state) }

    var batchesDeletes: Bool { dataStore is any DataStoreBatching }

    func batchDelete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        guard let batching = dataStore as? any DataStoreBatching else {
            preconditionFailure("\(Store.self) does not batch deletes: ask batchesDeletes first")
        }
        try batching.delete(request)
    }

    func history<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>, delete: Bool) throws -> [T]? {
        func provided<H: HistoryProviding>(_ store: H) throws -> [T]? {
            guard let own = descriptor as? HistoryDescriptor<H.HistoryType> else { return nil }
            if delete {
                try store.deleteHistory(own)
                return []
            }
            return try store.fetchHistory(own) as? [T]
        }
        guard let providing = dataStore as? any HistoryProviding else { return nil }
        return try provided(providing)
    }

    func takeReregistered() -> [NSManagedObjectID] {
        withState { state in
            defer { state.reregistered = [] }
            return state.reregistered
        }
    }
}

/// What the container hands a bridge it adds: the opened data store and the container's schema.
struct BridgeSetup<Store: DataStore>: @unchecked Sendable {
    let store: Store
    let schema: Schema
}

/// Whether this process has made a data store bridge (until then an object ID is never a bridge's, and
/// ``PersistentIdentifier`` skips looking its store up).
enum DataStoreBridges {
    private static let count = Atomic<Int>(0)
    static var exist: Bool { count.load(ordering: .relaxed) > 0 }
    static func made() { count.add(1, ordering: .relaxed) }
}

import Foundation

/// Mirrors SwiftData's `DataStoreConfiguration`: what describes one store of a container (its name, the
/// part of the schema it holds) and which ``DataStore`` type opens it. ``ModelConfiguration`` is the
/// built-in one (its store is ``DefaultStore``); an app's own store brings its own configuration type,
/// passed to `ModelContainer(for:configurations:)`.
public protocol DataStoreConfiguration: Hashable {
    /// Mirrors `Store`: the store type this configuration opens.
    associatedtype Store: DataStore
    /// Mirrors `name`: the configuration's name (unique in a container).
    var name: String { get }
    /// Mirrors `schema`: the models this store holds; `nil` for all of the container's.
    var schema: Schema? { get }
    /// Mirrors `validate()`: throws when the configuration cannot open a store. The container calls it
    /// before it opens the store.
    func validate() throws
}

/// Mirrors SwiftData's `DataStore`: a store that reads and writes models as snapshots, so that an app's own
/// storage (a file format, a web service) works under `ModelContext`. OpenSwiftData plugs a custom store
/// into the container's Core Data coordinator (docs/SwiftData.md, "Custom stores"), so its models have
/// every context feature: change tracking, undo, delete rules, inverses, optimistic locking.
public protocol DataStore: AnyObject {
    /// Mirrors `Configuration`.
    associatedtype Configuration: DataStoreConfiguration
    /// Mirrors `Snapshot`: the snapshot type the store reads and writes.
    associatedtype Snapshot: DataStoreSnapshot
    /// Mirrors `init(_:migrationPlan:)`: opens the store a configuration describes.
    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws
    /// Mirrors `configuration`.
    var configuration: Configuration { get }
    /// Mirrors `identifier`: the store's identifier, the `storeIdentifier` of its models' identifiers.
    var identifier: String { get }
    /// Mirrors `schema`: the models the store holds.
    var schema: Schema { get }
    /// Mirrors `fetch(_:)`: the snapshots a request's descriptor matches, in its order and window. A
    /// store that cannot evaluate the predicate or the sort throws ``DataStoreError/preferInMemoryFilter``
    /// or ``DataStoreError/preferInMemorySort``; it is then asked again without them.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>
    /// Mirrors `fetchCount(_:)`.
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int
    /// Mirrors `fetchIdentifiers(_:)`.
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]
    /// Mirrors `save(_:)`: writes inserted, updated and deleted snapshots, all or nothing. Inserted snapshots
    /// carry temporary identifiers; the result maps each to the permanent identifier the store gave it.
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>
    /// Mirrors `erase()`: removes every model the store holds.
    func erase() throws
    /// Mirrors `initializeState(for:)`: a context begins to use the store.
    func initializeState(for editingState: EditingState)
    /// Mirrors `cachedSnapshots(for:editingState:)`: the snapshots the store has cached for these
    /// identifiers (those it has not are left out); the context reads the others from ``fetch(_:)``.
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot]
    /// Mirrors `invalidateState(for:)`: a context stopped using the store (it was reset or released).
    func invalidateState(for editingState: EditingState)
}

/// Mirrors SwiftData's `DataStoreBatching`: a store that deletes the models a predicate matches itself
/// (`ModelContext.delete(model:where:includeSubclasses:)` hands it the request).
public protocol DataStoreBatching: DataStore {
    /// Mirrors `delete(_:)`.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws
}

/// Mirrors SwiftData's `DataStoreSnapshot`: one model's persisted values as a store reads and writes them.
/// A store's snapshots are read and written by OpenSwiftData through their `Codable` form, which is
/// ``DefaultSnapshot``'s (keys ``DataStoreSnapshotCodingKey``); ``DefaultSnapshot`` is the usual choice.
public protocol DataStoreSnapshot: Codable, Sendable {
    /// Mirrors `init(from:relatedBackingDatas:)`: the snapshot of a model's values; the backing data of each
    /// model it refers to is added to `relatedBackingDatas`.
    init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData])
    /// Mirrors `persistentIdentifier`.
    var persistentIdentifier: PersistentIdentifier { get }
    /// Mirrors `copy(persistentIdentifier:remappedIdentifiers:)`: the same values under another identifier,
    /// with references to remapped identifiers replaced.
    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> Self
}

/// Mirrors SwiftData's `DataStoreSnapshotValue`: what a snapshot's values are.
public typealias DataStoreSnapshotValue = Codable & Sendable

/// Mirrors SwiftData's `HistoryProviding`: a store that keeps the history of its changes
/// (`ModelContext.fetchHistory(_:)` and `deleteHistory(_:)`).
public protocol HistoryProviding<HistoryType>: DataStore {
    /// Mirrors `HistoryType`.
    associatedtype HistoryType: HistoryTransaction
    /// Mirrors `historyType`.
    static var historyType: HistoryType.Type { get }
    /// Mirrors `fetchHistory(_:)`.
    func fetchHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws -> [HistoryType]
    /// Mirrors `deleteHistory(_:)`.
    func deleteHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws
}

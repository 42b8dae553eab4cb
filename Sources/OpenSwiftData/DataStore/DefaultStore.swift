import Foundation
import OpenCoreData

/// Mirrors SwiftData's `DefaultStore`: the store a ``ModelConfiguration`` opens (Core Data's: an SQLite
/// file, in memory, or PostgreSQL) as a ``DataStore`` of snapshots. A `ModelContainer` made with
/// `ModelConfiguration`s uses these stores directly, not through this class; `DefaultStore` serves code
/// that works with stores as data stores (a store that wraps another, a copy between stores, tests).
///
/// Each editing state (``initializeState(for:)``) reads through a Core Data context of its own, whose
/// objects are what ``cachedSnapshots(for:editingState:)`` answers from until the next fetch of that
/// state or ``invalidateState(for:)``; saves write through a context of their own, in one transaction.
public final class DefaultStore: DataStore, DataStoreBatching, HistoryProviding, @unchecked Sendable {
    /// Mirrors `Configuration`.
    public typealias Configuration = ModelConfiguration
    /// Mirrors `Snapshot`.
    public typealias Snapshot = DefaultSnapshot
    /// Mirrors `HistoryType`.
    public typealias HistoryType = DefaultHistoryTransaction
    /// Mirrors `TokenType`.
    public typealias TokenType = DefaultHistoryToken

    /// Mirrors `name`: the configuration's name.
    public let name: String
    /// Mirrors `configuration`.
    public let configuration: ModelConfiguration
    /// Mirrors `schema`: the configuration's schema.
    public let schema: Schema
    /// Mirrors `identifier`: the Core Data store's identifier (its `NSStoreUUIDKey`).
    public let identifier: String
    private let container: ModelContainer
    private let lock = NSLock()
    private var contexts: [UUID: ModelContext] = [:]

    /// Mirrors `init(_:migrationPlan:)`: opens (creating or migrating) the configuration's store. The
    /// configuration must have a schema.
    public init(_ configuration: ModelConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else {
            throw SwiftDataError(.unknownDataStoreSchema, "DefaultStore needs a ModelConfiguration with a schema (configuration \(configuration.name) has none)")
        }
        (self.configuration, self.schema, name) = (configuration, schema, configuration.name)
        container = try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: [configuration])
        identifier = container.persistentStoreCoordinator.persistentStores.first?.identifier ?? ""
    }

    /// Mirrors `historyType`.
    public static var historyType: DefaultHistoryTransaction.Type { DefaultHistoryTransaction.self }

    // MARK: Editing states

    /// Mirrors `initializeState(for:)`: the editing state gets a context of its own.
    public func initializeState(for editingState: EditingState) { _ = context(for: editingState) }

    /// Mirrors `invalidateState(for:)`: the editing state's context and what it cached are dropped.
    public func invalidateState(for editingState: EditingState) {
        _ = lock.withLock { contexts.removeValue(forKey: editingState.id) }
    }

    /// Mirrors `cachedSnapshots(for:editingState:)`: the snapshots of the models the editing state's
    /// context has read and holds (not faults), as they were read.
    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        let context = context(for: editingState)
        var found: [PersistentIdentifier: DefaultSnapshot] = [:]
        for id in persistentIdentifiers {
            guard let objectID = context.objectID(of: id), let object = context.managedObjectContext.registeredObject(for: objectID),
                  !object.isFault else { continue }
            found[id] = DefaultSnapshot(object, identifier: PersistentIdentifier.init)
        }
        return found
    }

    private func context(for editingState: EditingState) -> ModelContext {
        lock.withLock {
            if let context = contexts[editingState.id] { return context }
            let context = ModelContext(container)
            context.author = editingState.author
            contexts[editingState.id] = context
            return context
        }
    }

    // MARK: Fetching

    /// Mirrors `fetch(_:)`: the descriptor evaluated by Core Data (in SQL, or in memory where it must);
    /// related snapshots are those of the to-one destinations.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let context = context(for: request.editingState)
        context.managedObjectContext.reset()
        let objects = try context.fetch(request.descriptor).map { $0.storage.object! }
        var related: [PersistentIdentifier: DefaultSnapshot] = [:]
        let fetched = objects.map { object in
            let toOne = object.entity.relationshipsByName.values.filter { !$0.isToMany }
            for destination in toOne.compactMap({ object.value(forKey: $0.name) as? NSManagedObject }) {
                let snapshot = DefaultSnapshot(destination, identifier: PersistentIdentifier.init)
                related[snapshot.persistentIdentifier] = snapshot
            }
            return DefaultSnapshot(object, identifier: PersistentIdentifier.init)
        }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: fetched, relatedSnapshots: related)
    }

    /// Mirrors `fetchCount(_:)`.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try ModelContext(container).fetchCount(request.descriptor)
    }

    /// Mirrors `fetchIdentifiers(_:)`.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try ModelContext(container).fetchIdentifiers(request.descriptor)
    }

    // MARK: Saving

    /// Mirrors `save(_:)`: inserts, updates and deletes in one Core Data save; each inserted snapshot's
    /// temporary identifier maps to its row's identifier. Nothing is written when any part fails (an
    /// unknown identifier, a value of the wrong kind, a validation or delete rule).
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let context = ModelContext(container)
        context.author = request.editingState.author
        let writer = SnapshotWriter(context: context.managedObjectContext, objectID: context.objectID(of:))
        let inserted = try writer.insert(request.inserted)
        try writer.update(request.updated)
        try writer.delete(request.deleted)
        try context.managedObjectContext.obtainPermanentIDs(for: Array(inserted.values))
        try context.managedObjectContext.save()
        let remapped = inserted.mapValues { PersistentIdentifier($0.objectID) }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }

    /// Mirrors `delete(_:)` of ``DataStoreBatching``: deletes the models the predicate matches in one save.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let context = ModelContext(container)
        try context.delete(model: T.self, where: request.predicate, includeSubclasses: request.includeSubclasses)
        try context.save()
    }

    /// Mirrors `erase()`: destroys the store's data (the store stays open, empty).
    public func erase() throws {
        lock.withLock { contexts = [:] }
        try container.erase()
    }

    // MARK: History

    /// Mirrors `fetchHistory(_:)`.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try ModelContext(container).fetchHistory(descriptor)
    }

    /// Mirrors `deleteHistory(_:)`.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try ModelContext(container).deleteHistory(descriptor)
    }
}

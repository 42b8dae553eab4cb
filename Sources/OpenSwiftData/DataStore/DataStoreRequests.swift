import Foundation

/// Mirrors SwiftData's `DataStoreFetchRequest`: what a context asks a ``DataStore`` to fetch.
public struct DataStoreFetchRequest<T: PersistentModel> {
    /// Mirrors `descriptor`: the predicate, sort, window and prefetching wanted.
    public let descriptor: FetchDescriptor<T>
    /// Mirrors `editingState`: the asking context.
    public let editingState: EditingState

    init(descriptor: FetchDescriptor<T>, editingState: EditingState) {
        (self.descriptor, self.editingState) = (descriptor, editingState)
    }
}

/// Mirrors SwiftData's `DataStoreFetchResult`: a store's answer to a fetch.
public struct DataStoreFetchResult<ModelType: PersistentModel, SnapshotType: DataStoreSnapshot> {
    /// Mirrors `descriptor`: the descriptor answered.
    public let descriptor: FetchDescriptor<ModelType>
    /// Mirrors `fetchedSnapshots`: the matching models' snapshots, in the descriptor's order.
    public let fetchedSnapshots: [SnapshotType]
    /// Mirrors `relatedSnapshots`: snapshots of models the fetched ones refer to, by identifier (the
    /// context keeps them, so that following a relationship need not ask the store again).
    public let relatedSnapshots: [PersistentIdentifier: SnapshotType]

    /// Mirrors `init(descriptor:fetchedSnapshots:relatedSnapshots:)`.
    public init(descriptor: FetchDescriptor<ModelType>, fetchedSnapshots: [SnapshotType], relatedSnapshots: [PersistentIdentifier: SnapshotType]) {
        (self.descriptor, self.fetchedSnapshots, self.relatedSnapshots) = (descriptor, fetchedSnapshots, relatedSnapshots)
    }
}

/// Mirrors SwiftData's `DataStoreSaveChangesRequest`: the changes a context's save hands its store.
public struct DataStoreSaveChangesRequest<SnapshotType: DataStoreSnapshot>: Sendable {
    /// Mirrors `editingState`: the saving context.
    public let editingState: EditingState
    /// Mirrors `inserted`: new models, under temporary identifiers.
    public let inserted: [SnapshotType]
    /// Mirrors `updated`: changed models, with all their values.
    public let updated: [SnapshotType]
    /// Mirrors `deleted`: deleted models, as they were last read.
    public let deleted: [SnapshotType]

    init(editingState: EditingState, inserted: [SnapshotType], updated: [SnapshotType], deleted: [SnapshotType]) {
        (self.editingState, self.inserted, self.updated, self.deleted) = (editingState, inserted, updated, deleted)
    }
}

/// Mirrors SwiftData's `DataStoreSaveChangesResult`: what a store says about a save it made.
public final class DataStoreSaveChangesResult<T: DataStoreSnapshot>: Sendable {
    /// Mirrors `storeIdentifier`.
    public let storeIdentifier: String
    /// Mirrors `remappedIdentifiers`: each inserted snapshot's temporary identifier, mapped to the permanent
    /// identifier the store gave it.
    public let remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]
    /// Mirrors `snapshotsToReregister`: models whose values the store changed while saving (a server's
    /// timestamps); the saving context shows these values afterwards.
    public let snapshotsToReregister: [PersistentIdentifier: T]

    /// Mirrors `init(for:remappedIdentifiers:snapshotsToReregister:)`.
    public init(for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
                snapshotsToReregister: [PersistentIdentifier: T] = [:]) {
        (self.storeIdentifier, self.remappedIdentifiers, self.snapshotsToReregister) = (storeIdentifier, remappedIdentifiers, snapshotsToReregister)
    }
}

/// Mirrors SwiftData's `DataStoreBatchDeleteRequest`: the models a ``DataStoreBatching`` store deletes itself.
public struct DataStoreBatchDeleteRequest<T: PersistentModel>: Sendable {
    /// Mirrors `editingState`.
    public let editingState: EditingState
    /// Mirrors `predicate`: the models to delete (all of `T` when `nil`).
    public let predicate: Predicate<T>?
    /// Mirrors `includeSubclasses`.
    public let includeSubclasses: Bool

    init(editingState: EditingState, predicate: Predicate<T>?, includeSubclasses: Bool) {
        (self.editingState, self.predicate, self.includeSubclasses) = (editingState, predicate, includeSubclasses)
    }
}

/// Mirrors SwiftData's `DataStoreError`: what a ``DataStore`` throws to say it will not do a request.
public enum DataStoreError: Error, Hashable, Sendable {
    /// Mirrors `invalidPredicate`: the predicate cannot be evaluated.
    case invalidPredicate
    /// Mirrors `preferInMemoryFilter`: the store does not filter; the context asks for all the models and
    /// filters them itself.
    case preferInMemoryFilter
    /// Mirrors `preferInMemorySort`: the store does not sort; the context sorts.
    case preferInMemorySort
    /// Mirrors `unsupportedFeature`: the store does not do this request.
    case unsupportedFeature
    /// Mirrors `unknown`.
    case unknown
}

import Foundation
import OpenCoreData

/// The fetch a ``ModelContext`` runs through a custom store: its descriptor, which the bridge hands the
/// store (Core Data's request carries only the converted predicate). Set around the context's Core Data
/// fetch; the bridge reads it on the same thread.
protocol BridgedFetch: Sendable {
    var entityName: String { get }
    /// Whether only identifiers are wanted (`fetchIdentifiers(_:)`).
    var identifiersOnly: Bool { get }
    /// The store's snapshots for the descriptor as Core Data's `request` narrows it.
    func snapshots<S: DataStore>(_ store: S, _ request: NSFetchRequest<NSFetchRequestResult>, _ state: EditingState) throws
        -> (fetched: [S.Snapshot], related: [PersistentIdentifier: S.Snapshot])
    /// The store's identifiers for the descriptor as Core Data's `request` narrows it.
    func identifiers<S: DataStore>(_ store: S, _ request: NSFetchRequest<NSFetchRequestResult>, _ state: EditingState) throws -> [PersistentIdentifier]
    /// The store's count for the descriptor as Core Data's `request` narrows it.
    func count<S: DataStore>(_ store: S, _ request: NSFetchRequest<NSFetchRequestResult>, _ state: EditingState) throws -> Int
}

enum BridgedFetchScope {
    @TaskLocal static var current: (any BridgedFetch)?
}

/// A descriptor's fetch, narrowed to what Core Data asks of the store: when the context judges unsaved
/// changes in memory it asks without the predicate, the sort or the window, and the store must not apply
/// them either.
struct DescriptorFetch<T: PersistentModel>: BridgedFetch, @unchecked Sendable {
    let descriptor: FetchDescriptor<T>
    var identifiersOnly = false

    var entityName: String { Schema.entityName(for: T.self) }

    func request(_ request: NSFetchRequest<NSFetchRequestResult>, _ state: EditingState) -> DataStoreFetchRequest<T> {
        DataStoreFetchRequest(descriptor: Self.narrowed(descriptor, to: request), editingState: state)
    }

    static func narrowed(_ descriptor: FetchDescriptor<T>, to request: NSFetchRequest<NSFetchRequestResult>) -> FetchDescriptor<T> {
        var narrowed = descriptor
        if request.predicate == nil { narrowed.predicate = nil }
        if request.sortDescriptors?.isEmpty ?? true { narrowed.sortBy = [] }
        narrowed.fetchLimit = request.fetchLimit > 0 ? request.fetchLimit : nil
        narrowed.fetchOffset = request.fetchOffset > 0 ? request.fetchOffset : nil
        return narrowed
    }

    func snapshots<S: DataStore>(_ store: S, _ request: NSFetchRequest<NSFetchRequestResult>, _ state: EditingState) throws
        -> (fetched: [S.Snapshot], related: [PersistentIdentifier: S.Snapshot]) {
        let result = try store.fetch(self.request(request, state))
        return (result.fetchedSnapshots, result.relatedSnapshots)
    }

    func identifiers<S: DataStore>(_ store: S, _ request: NSFetchRequest<NSFetchRequestResult>, _ state: EditingState) throws -> [PersistentIdentifier] {
        try store.fetchIdentifiers(self.request(request, state))
    }

    func count<S: DataStore>(_ store: S, _ request: NSFetchRequest<NSFetchRequestResult>, _ state: EditingState) throws -> Int {
        try store.fetchCount(self.request(request, state))
    }
}

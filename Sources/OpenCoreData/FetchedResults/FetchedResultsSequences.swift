import Foundation

/// Not in Core Data (issue #35): a fetched results controller's sections, as a value.
public struct FetchedResultsSnapshot: Sendable, Equatable {
    /// One section: its name and its objects' IDs, in order.
    public struct Section: Sendable, Equatable {
        public let name: String
        public let objectIDs: [NSManagedObjectID]
    }
    /// The sections, in order.
    public let sections: [Section]

    init(sections: [Section]) { self.sections = sections }

    /// The controller's sections, by object ID.
    init(_ sections: [FetchedSection]) {
        self.sections = sections.map { Section(name: $0.name, objectIDs: $0.entries.map(\.object.objectID)) }
    }

    /// The same, as the diffable data source snapshot the delegate's snapshot method receives.
    public var diffableSnapshot: NSDiffableDataSourceSnapshot<String, NSManagedObjectID> {
        var snapshot = NSDiffableDataSourceSnapshot<String, NSManagedObjectID>()
        for section in sections {
            snapshot.appendSections([section.name])
            snapshot.appendItems(section.objectIDs, toSection: section.name)
        }
        return snapshot
    }
}

/// Not in Core Data (issue #35): what one `controllerDidChangeContent` changed, as differences: the
/// sections inserted and deleted (by name) and, per section present after it, the difference of its
/// object IDs (from an empty section for an inserted one).
public struct FetchedResultsChangeBatch: Sendable, Equatable {
    public let insertedSections: [String]
    public let deletedSections: [String]
    public let differences: [String: CollectionDifference<NSManagedObjectID>]
    /// The sections after the batch.
    public let snapshot: FetchedResultsSnapshot

    init(from old: FetchedResultsSnapshot, to new: FetchedResultsSnapshot) {
        let oldSections = Dictionary(old.sections.map { ($0.name, $0.objectIDs) }, uniquingKeysWith: { a, _ in a })
        let newNames = Set(new.sections.map(\.name))
        insertedSections = new.sections.map(\.name).filter { oldSections[$0] == nil }
        deletedSections = old.sections.map(\.name).filter { !newNames.contains($0) }
        var differences: [String: CollectionDifference<NSManagedObjectID>] = [:]
        for section in new.sections {
            let difference = section.objectIDs.difference(from: oldSections[section.name] ?? [])
            if !difference.isEmpty { differences[section.name] = difference }
        }
        self.differences = differences
        snapshot = new
    }
}

extension NSFetchedResultsController {
    /// Not in Core Data (issue #35): the controller's sections after each `controllerDidChangeContent`,
    /// as an `AsyncSequence`, starting with the sections as they are when iteration starts (if fetched).
    /// A slow consumer gets the newest snapshot: snapshots it had no time to read are skipped (each is
    /// the whole state). Each iteration is a subscription of its own (iterating twice gives two); the
    /// controller tracks changes while one is open, as for a delegate, and a cancelled or finished
    /// iteration stops its subscription without keeping the controller alive.
    public var snapshots: FetchedResultsSequence<FetchedResultsSnapshot> {
        FetchedResultsSequence(core: core, policy: .bufferingNewest(1), initial: true) { _, new in new }
    }

    /// Not in Core Data (issue #35): each `controllerDidChangeContent` as a ``FetchedResultsChangeBatch``.
    /// Every batch is delivered, in order (a consumer that never reads keeps them in memory); otherwise as
    /// ``snapshots``.
    public var changeBatches: FetchedResultsSequence<FetchedResultsChangeBatch> {
        FetchedResultsSequence(core: core, policy: .unbounded, initial: false) { old, new in FetchedResultsChangeBatch(from: old, to: new) }
    }
}

/// Not in Core Data: an `AsyncSequence` over a fetched results controller's changes (see
/// ``NSFetchedResultsController/snapshots``).
public struct FetchedResultsSequence<Element: Sendable>: AsyncSequence, Sendable {
    weak var core: FetchedResultsCore?
    let policy: AsyncStream<Element>.Continuation.BufferingPolicy
    let initial: Bool
    let make: @Sendable (FetchedResultsSnapshot, FetchedResultsSnapshot) -> Element

    init(core: FetchedResultsCore, policy: AsyncStream<Element>.Continuation.BufferingPolicy, initial: Bool,
         make: @escaping @Sendable (FetchedResultsSnapshot, FetchedResultsSnapshot) -> Element) {
        self.core = core
        self.policy = policy
        self.initial = initial
        self.make = make
    }

    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: policy)
        guard let core else {
            continuation.finish()
            return stream.makeAsyncIterator()
        }
        let make = self.make
        let current = core.snapshot
        var last = current ?? FetchedResultsSnapshot(sections: [])
        if initial, let current { continuation.yield(make(last, current)) }
        let id = core.listen { new in
            continuation.yield(make(last, new))
            last = new
        }
        continuation.onTermination = { [weak core] _ in core?.stopListening(id) }
        return stream.makeAsyncIterator()
    }
}

extension FetchedResultsCore {
    /// The sections as a snapshot (`nil` before `performFetch()`).
    var snapshot: FetchedResultsSnapshot? { sections.map(FetchedResultsSnapshot.init) }

    /// Adds a listener, called on the context's queue with the sections after each change batch.
    func listen(_ listener: @escaping (FetchedResultsSnapshot) -> Void) -> UUID {
        let id = UUID()
        listeners.withLock { $0[id] = listener }
        return id
    }

    func stopListening(_ id: UUID) {
        _ = listeners.withLock { $0.removeValue(forKey: id) }
    }

    /// Whether anyone hears changes: the delegate or a sequence's iteration.
    var isTracking: Bool { delegate != nil || listeners.withLock { !$0.isEmpty } }

    /// Tells the listeners the sections after a change batch.
    func notifyListeners() {
        let current = listeners.withLock { Array($0.values) }
        guard !current.isEmpty, let snapshot else { return }
        for listener in current { listener(snapshot) }
    }
}

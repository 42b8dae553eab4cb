import Foundation

/// The rows of a batched fetch (`fetchBatchSize`), in result order: firing one fault loads its batch. Or
/// the rows a plain fetch brought (``rows``): firing one fault takes its row, no query. Or the rows of
/// prefetched objects (``isLoaded``): the objects are loaded, their values the rows'.
///
/// Its objects are made bare (``ObjectBody/batch(_:index:)``: no state, no ID) and registered with their
/// context lazily (``ObjectRegistry/register(_:allNew:)``): a batched fetch costs the key query, one small
/// object per row, and no hashing, until something looks a key up.
final class FaultBatch {
    let size: Int
    let root: Int
    /// The keys of a batched fetch (none when the batch holds ``rows``: the keys are theirs).
    let keys: BatchKeys
    /// The rows of a plain fetch, values included, in result order (empty for a batched fetch). They are
    /// kept while an object of the fetch is still a bare fault.
    let rows: [StoreRow]
    /// The fetch's `relationshipKeyPathsForPrefetching`, prefetched for each batch as it loads.
    let prefetch: [PrefetchNode]
    /// What its context's registry refers to (weakly): its context, its objects, whether it is detached.
    let registration: BatchRegistration
    /// The context that fetched it (its objects' context while they are bare faults).
    var context: NSManagedObjectContext? { registration.context }
    /// The store the rows are in (for the objects' IDs).
    let storeIdentifier: String
    /// Its objects, in result order, while its context keeps them (``BatchRegistration/objects``).
    var objects: [NSManagedObject] {
        get { registration.objects }
        _modify { yield &registration.objects }
    }
    /// Its context was reset: its bare faults are detached.
    var isDetached: Bool { registration.isDetached }
    /// For OpenSwiftData: the model showing each bare object, by index (made when the first is linked), so
    /// that a fetched object keeps its model without being given a state of its own. (Unchecked exclusivity: the
    /// changes below reach nothing else.)
    @exclusivity(unchecked) private var swiftDataModels: [SwiftDataModelLink] = []

    /// The link to the model showing the bare object at `index`, moved out (to the object's state, when it gets one).
    func takeSwiftDataModelLink(at index: Int) -> SwiftDataModelLink {
        index < swiftDataModels.count ? swiftDataModels[index].take() : .none
    }

    /// The model showing the bare object at `index`.
    func swiftDataModel(at index: Int) -> AnyObject? {
        index < swiftDataModels.count ? swiftDataModels[index].model : nil
    }

    /// Links `model` to the bare object at `index`.
    func linkSwiftDataModel(_ model: AnyObject, at index: Int) {
        if swiftDataModels.isEmpty { swiftDataModels = Array(repeating: .none, count: rows.isEmpty ? keys.count : rows.count) }
        swiftDataModels[index].link(model)
    }
    /// Its objects are loaded, not faults (prefetched destinations): each object's values and snapshot
    /// are its row's (all rows hold values) until the object is first changed or its state is needed
    /// (``NSManagedObject/objectState``).
    let isLoaded: Bool

    init(size: Int, root: Int, keys: BatchKeys = BatchKeys([]), rows: [StoreRow] = [], prefetch: [PrefetchNode] = [],
         context: NSManagedObjectContext? = nil, storeIdentifier: String = "", loaded: Bool = false) {
        self.isLoaded = loaded
        self.size = size
        self.root = root
        self.keys = keys
        self.rows = rows
        self.prefetch = prefetch
        self.registration = BatchRegistration(context: context)
        self.storeIdentifier = storeIdentifier
    }

    /// Its objects are gone: a reader still delivering its keys stops.
    deinit {
        keys.abandon()
        for i in swiftDataModels.indices { swiftDataModels[i].release() }
    }

    /// The objects of the part of the batch that holds `index`.
    func chunk(of index: Int) -> Range<Int> {
        let start = (index / size) * size
        return start..<min(start + size, rows.isEmpty ? keys.count : rows.count)
    }

    /// The primary key of the object at `index`.
    func primaryKey(_ index: Int) -> Int64 { rows.isEmpty ? keys[index] : rows[index].pk }

    /// The key of the object at `index`.
    func key(_ index: Int) -> ObjectKey { .permanent(root: root, pk: primaryKey(index)) }

    /// Where its bare faults are in their life: fetched (`.new`, as any fetched object), or detached
    /// by their context's `reset()`.
    var lifecycle: Lifecycle { isDetached ? .detached : .new }

    /// What a bare object at `index` is: a fault of the batch to load, one holding its row, or loaded.
    @inline(__always) func faultState(_ index: Int) -> FaultState {
        if isLoaded { return .loaded }
        guard !rows.isEmpty, let values = rows[index].values else { return .inBatch(self, index: index) }
        return .holdingRow(values, version: rows[index].version)
    }

    /// Whether the bare object at `index` is a fault that must read its row (``faultState(_:)`` is
    /// `.inBatch`), told without making its fault state.
    func needsRow(_ index: Int) -> Bool {
        !isLoaded && (rows.isEmpty || rows[index].values == nil)
    }

    /// The value in `slot` of the row the batch holds for its object at `index`; `nil` when it holds no
    /// rows (a batched fetch's) or the row has no such slot.
    func rowValue(_ index: Int, _ slot: Int) -> Value? {
        guard !rows.isEmpty, let values = rows[index].values, slot < values.count else { return nil }
        return values[slot]
    }

    /// The values of the loaded bare object at `index`; `nil` unless the batch ``isLoaded``.
    func loadedValues(_ index: Int) -> [Value]? { isLoaded ? rows[index].values : nil }

    /// The row version of the loaded bare object at `index`; 0 unless the batch ``isLoaded``.
    func loadedVersion(_ index: Int) -> Int64 { isLoaded ? rows[index].version : 0 }
}

/// The part of a ``FaultBatch`` that loaded together (its keys `range`): the objects whose to-many
/// faults are read together.
final class BatchChunk {
    let batch: FaultBatch
    let range: Range<Int>
    init(_ batch: FaultBatch, _ range: Range<Int>) {
        self.batch = batch
        self.range = range
    }
}

/// The part of a ``FaultBatch`` its context's registry lists (weakly, ``ObjectRegistry/batches``) and
/// changes: its context, its objects while the context keeps them, whether the context was reset. Owned by
/// the batch alone, so it lives as long as the batch, and it is the only part of a batch anything refers
/// to weakly: the batch itself, which each of its objects retains and releases, never takes the runtime's
/// side table of weakly referenced objects, whose retains and releases are out-of-line atomics on that
/// table (Benchmarks/README.md, "Issue 51 (session 32)").
final class BatchRegistration {
    /// The context that fetched the batch.
    var context: NSManagedObjectContext? {
        get { weakContext.context }
        set { weakContext.context = newValue }
    }
    /// The reference behind ``context``, which each object's state made from the batch copies.
    var weakContext: WeakContext
    /// The batch's objects, in result order, while its context keeps them. They hold the batch, so the
    /// context empties this when it lets them go (`reset()`, its end, or a sweep): see
    /// ``ObjectRegistry/detachBatches(reset:)``.
    var objects: [NSManagedObject] = []
    /// The context was reset: the batch's bare faults are detached.
    var isDetached = false

    init(context: NSManagedObjectContext?) { weakContext = WeakContext(context: context) }
}

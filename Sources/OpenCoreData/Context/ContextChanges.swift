import Foundation

/// A change a context hands to its internal observers (its fetched results controllers) as a typed
/// value, beside the public notification it posts. Core Data's notifications are output only: nothing
/// in the library reads them back to learn what changed.
enum ContextChange {
    /// Objects changed: the context's own edits (`processPendingChanges()`), a merged save, or
    /// `refreshAllObjects()`; posted as `ObjectsDidChange` too.
    case objects(AnnouncedChanges)
    /// `reset()`: every registered object was forgotten (`NSInvalidatedAllObjectsKey`).
    case invalidatedAll
    /// The context's own save (to the store or into its parent), posted as `DidSave` too: the objects
    /// it inserted, which have their store keys now when the save reached the store.
    case saved(inserted: Set<NSManagedObject>)
}

/// What a context announces for one change of objects: Core Data's sets (the same as under
/// `NSInsertedObjectsKey`, `NSUpdatedObjectsKey` — with `NSRefreshedObjectsKey` — and
/// `NSDeletedObjectsKey`), and what Core Data does not say: for each updated object the storage slots
/// whose values changed (so that a fetched results controller knows whether an update can move an
/// object; absent: any slot may have changed), and the rows of a merged save that the context never
/// registered — not announced (Core Data announces registered objects only), but evaluated by fetched
/// results controllers against their requests (updated rows) or allowed to move a
/// `fetchLimit`/`fetchOffset` window (deleted rows); Core Data's controllers miss both.
struct AnnouncedChanges {
    var inserted: Set<NSManagedObject> = []
    var updated: Set<NSManagedObject> = []
    var deleted: Set<NSManagedObject> = []
    let changedSlots: [NSManagedObjectID: Set<Int>]
    var unregisteredUpdated: [SavedChanges.Row] = []
    var unregisteredDeleted: [NSManagedObjectID] = []

    init(changedSlots pairs: [(NSManagedObjectID, Set<Int>)]) {
        changedSlots = Dictionary(pairs, uniquingKeysWith: { a, b in a.union(b) })
    }

    init(changedSlots: [NSManagedObjectID: Set<Int>]) {
        self.changedSlots = changedSlots
    }
}

/// Something a context tells of its changes as typed values (a fetched results controller's core),
/// called synchronously where the context posts the matching public notification, before it.
protocol ContextChangeObserver: AnyObject {
    func contextDidChange(_ change: ContextChange)
}

/// A context's internal observers, held weakly (an observer that goes away needs no removal) behind a
/// lock (a controller may start observing from another thread than the context's queue).
final class ContextObservers: @unchecked Sendable {
    private struct Entry { weak var observer: (any ContextChangeObserver)? }
    private var entries: [Entry] = []
    private let lock = NSLock()

    /// Adds `observer` (once).
    func add(_ observer: any ContextChangeObserver) {
        lock.lock(); defer { lock.unlock() }
        entries.removeAll { $0.observer == nil }
        guard !entries.contains(where: { $0.observer === observer }) else { return }
        entries.append(Entry(observer: observer))
    }

    /// Whether it holds no observer (one that went away is held until the next is added).
    var isEmpty: Bool {
        lock.lock(); defer { lock.unlock() }
        return entries.isEmpty
    }

    /// Hands `change` to every observer still alive, in the order they were added. The list is read
    /// under the lock and the observers called outside it (an observer may add another); the value is
    /// built only when someone observes.
    func tell(_ change: @autoclosure () -> ContextChange) {
        lock.lock()
        let current = entries
        lock.unlock()
        guard !current.isEmpty else { return }
        let change = change()
        for entry in current { entry.observer?.contextDidChange(change) }
    }
}

import Foundation

/// The contexts that merge other contexts' saves as they happen (`automaticallyMergesChangesFromParent`):
/// a context lists its merging children, a coordinator the merging contexts on it. A save hands them its
/// ``SavedChanges`` directly, as a typed value: no notification carries them, so an app's observers see
/// Core Data's keys only, and a merge never depends on what a notification's dictionary holds.
final class SaveListeners: @unchecked Sendable {
    private struct Entry {
        weak var context: NSManagedObjectContext?
    }

    private let entries = LockedValue<[Entry]>([])

    func add(_ context: NSManagedObjectContext) {
        entries.withLock { list in
            list.removeAll { $0.context == nil || $0.context === context }
            list.append(Entry(context: context))
        }
    }

    func remove(_ context: NSManagedObjectContext) {
        entries.withLock { list in list.removeAll { $0.context == nil || $0.context === context } }
    }

    /// Every listening context but `source` merges `saved`, each on its own queue.
    func deliver(_ saved: SavedChanges, from source: NSManagedObjectContext) {
        let contexts = entries.withLock { list in list.compactMap(\.context) }
        for context in contexts where context !== source {
            if let schedule = context.mergeScheduler {
                schedule { context.merge(saved) }
            } else {
                context.perform { context.merge(saved) }
            }
        }
    }
}

extension NSManagedObjectContext {
    /// Mirrors `automaticallyMergesChangesFromParent`: when true, saves of the parent context (or, for a
    /// context on the coordinator, the saves into the store of every other context on the same
    /// coordinator) are merged into this one on its queue, posting `ObjectsDidChange` here.
    public var automaticallyMergesChangesFromParent: Bool {
        get { mergeListening != nil }
        set {
            mergeListening?.remove(self)
            mergeListening = nil
            if newValue { listenForSaves() }
        }
    }

    /// Joins the listeners this context merges from: its parent's, else its coordinator's (again when
    /// either changes). Until it has one, it is marked as merging, and joins when it gets one.
    func listenForSaves() {
        mergeListening?.remove(self)
        let listeners = parent?.mergingChildren ?? persistentStoreCoordinator?.mergingContexts ?? SaveListeners()
        listeners.add(self)
        mergeListening = listeners
    }

    /// Hands a save to the contexts that merge from this one, and (when it reached the store) to those
    /// that merge from the coordinator.
    func deliverToMergingContexts(_ saved: SavedChanges) {
        mergingChildren.deliver(saved, from: self)
        if saved.reachedStore, parent == nil { persistentStoreCoordinator?.mergingContexts.deliver(saved, from: self) }
    }
}

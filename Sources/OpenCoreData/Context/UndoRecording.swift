import Foundation
import Synchronization

/// What a context with an undo manager records during one event (until its next
/// `processPendingChanges()`): each changed slot's value before its first change, and the objects
/// inserted or deleted. At the end of the event the context registers the inverse of it all as one
/// undo operation (``ContextUndoEvent``), as Core Data registers its changes when it processes them.
final class UndoRecording {
    let manager: UndoManager
    unowned let context: NSManagedObjectContext
    private var observer: NSObjectProtocol?

    /// The objects whose slots changed, in the order of their first change, with the values before.
    private var changed: [ChangedSlots] = []
    private var changedIndex: [ObjectIdentifier: Int] = [:]
    /// The objects inserted or deleted, with whether they were in the context's graph before.
    private var lives: [(object: NSManagedObject, wasLive: Bool)] = []
    private var livesIndex: Set<ObjectIdentifier> = []

    /// While an undo or redo applies an event: its changes are not recorded (the operation registers its
    /// own inverse).
    var isApplying = false
    /// While the event is registered (a checkpoint it causes must not register it again).
    var isRegistering = false
    /// While a save runs: the changes it records join one group, closed when it ends.
    var holdsEvent = 0

    var isEmpty: Bool { changed.isEmpty && lives.isEmpty }

    /// Whether any context of the process has had an undo manager: until one has, an object's setters
    /// do not look for their context's (set once, never cleared).
    static let everUsed = Atomic<Bool>(false)

    init(manager: UndoManager, context: NSManagedObjectContext) {
        self.manager = manager
        self.context = context
        Self.everUsed.store(true, ordering: .relaxed)
        // A checkpoint (a group closing, an undo, `canRedo`) records the pending changes first, as Core
        // Data's contexts do.
        observer = NotificationCenter.default.addObserver(forName: .NSUndoManagerCheckpoint, object: manager, queue: nil) { [weak context] _ in
            context?.undoCheckpoint()
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// Called before a slot of `object` changes: keeps the value it has, the first time in the event.
    func willChange(_ object: NSManagedObject, slot: Int) {
        guard !isApplying else { return }
        let id = ObjectIdentifier(object)
        if let index = changedIndex[id] {
            let entry = changed[index]
            if entry.before[slot] == nil { entry.before[slot] = context.undoValue(object, slot) }
            return
        }
        startEventIfNeeded()
        let entry = ChangedSlots(object)
        entry.before[slot] = context.undoValue(object, slot)
        changedIndex[id] = changed.count
        changed.append(entry)
    }

    /// Called before `object` is inserted into or deleted from the context.
    func willChangeLife(of object: NSManagedObject) {
        guard !isApplying, livesIndex.insert(ObjectIdentifier(object)).inserted else { return }
        startEventIfNeeded()
        lives.append((object, context.isLive(object)))
    }

    /// The first change of an event opens the manager's event group (``UndoManager/groupsByEvent``), so
    /// that `setActionName(_:)` names the group these changes will join.
    private func startEventIfNeeded() {
        if isEmpty { manager.openEventGroupIfNeeded() }
    }

    /// The event's inverse — what undoing it sets back — or `nil` when it changed nothing in the end;
    /// the recording starts a new event.
    func takeEvent() -> ContextUndoEvent? {
        defer { forget() }
        var event = ContextUndoEvent()
        for entry in changed {
            let object = entry.object
            for (slot, before) in entry.before.sorted(by: { $0.key < $1.key }) {
                if !object.isFault, slot < object.values.count, object.values[slot].isIdentical(to: before.raw) { continue }
                event.values.append((object, slot, before))
            }
        }
        for (object, wasLive) in lives {
            let isLive = context.isLive(object)
            if wasLive, !isLive { event.revive.append(object) }
            if !wasLive, isLive { event.remove.append(object) }
        }
        return event.isEmpty ? nil : event
    }

    /// Forgets what the event recorded.
    func forget() {
        changed = []
        changedIndex = [:]
        lives = []
        livesIndex = []
    }
}

/// An object's slots changed in an event, with their values before.
final class ChangedSlots {
    let object: NSManagedObject
    var before: [Int: UndoValue] = [:]
    init(_ object: NSManagedObject) { self.object = object }
}

/// A slot's value as an undo operation keeps it: relationships by object, not by key (an object's key
/// changes from temporary to permanent when it is saved), and the raw value to see whether it changed.
struct UndoValue {
    enum Kept {
        case attribute
        case toOne(NSManagedObject?)
        case toMany([NSManagedObject], ordered: Bool)
    }

    let raw: Value
    let kept: Kept

    /// The slot's value now (references with the objects' current keys).
    var slotValue: Value {
        switch kept {
        case .attribute: return raw
        case .toOne(let object): return object?.ref.value ?? .null
        case .toMany(let objects, let ordered):
            return ToManyMembers(distinct: objects.map(\.ref), ordered: ordered).value
        }
    }
}

/// What undoing (or redoing) one event of a context sets back: slot values, objects to bring back into
/// the context (deleted in the event), objects to take out of it (inserted in the event).
struct ContextUndoEvent {
    var values: [(object: NSManagedObject, slot: Int, value: UndoValue)] = []
    var revive: [NSManagedObject] = []
    var remove: [NSManagedObject] = []

    var isEmpty: Bool { values.isEmpty && revive.isEmpty && remove.isEmpty }
}

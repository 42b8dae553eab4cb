import Foundation

extension NSManagedObjectContext {
    /// Mirrors `undoManager` (`nil` by default, as in Core Data): with a manager, the context records its
    /// inserts, deletes, attribute and relationship changes (both sides) and registers their inverse as
    /// one undo operation each time it processes its pending changes — at `processPendingChanges()`, at
    /// `save()` (one group per save), and at the manager's checkpoints (`undo()`, closing a group,
    /// `canRedo`). With ``UndoManager/groupsByEvent`` the first change of an event opens the manager's
    /// group and `processPendingChanges()` closes it: one undo group per event, as Core Data groups them
    /// per run-loop pass. Setting another manager (or `nil`) first processes the changes recorded for the
    /// old one. Not recorded: what merges (`mergeChanges(fromContextDidSave:)`, refreshes) and a child's
    /// save into this context change.
    public var undoManager: UndoManager? {
        get { undoRecording?.manager }
        set {
            guard newValue !== undoRecording?.manager else { return }
            if let undoRecording, !undoRecording.isEmpty { processPendingChanges() }
            undoRecording = newValue.map { UndoRecording(manager: $0, context: self) }
        }
    }

    /// Mirrors `undo()`: processes the pending changes (so they are the last group), then undoes the last
    /// group of the undo manager. Undoing an insert takes the object out of the context as if never
    /// inserted (announced as deleted); undoing a delete brings it back with its values and
    /// relationships (announced as inserted); undone values are announced as updates, as any edit is.
    /// Nothing happens without an undo manager.
    public func undo() {
        checkQueue("undo()")
        guard let manager = undoManager else { return }
        processPendingChanges()
        manager.undo()
    }

    /// Mirrors `redo()`: redoes the last undone group of the undo manager.
    public func redo() {
        checkQueue("redo()")
        guard let manager = undoManager else { return }
        processPendingChanges()
        manager.redo()
    }

    // MARK: - Recording

    /// Registers the event's inverse with the undo manager; closes the manager's event group unless a
    /// save is running (it closes it when it ends). Called when pending changes are processed.
    func registerUndoEvent() {
        guard let recording = undoRecording, !recording.isApplying, !recording.isRegistering else { return }
        recording.isRegistering = true
        defer { recording.isRegistering = false }
        let manager = recording.manager
        if let event = recording.takeEvent(), manager.isUndoRegistrationEnabled {
            registerUndo(of: event, with: manager)
        }
        if recording.holdsEvent == 0 { manager.closeEventGroup() }
    }

    private func registerUndo(of event: ContextUndoEvent, with manager: UndoManager) {
        manager.registerUndo(withTarget: self) { [weak manager] context in
            if let manager { context.apply(event, registeringWith: manager) }
        }
    }

    /// The end of a save's event: the group of the changes it recorded closes.
    func endSaveEvent() {
        guard let recording = undoRecording else { return }
        recording.holdsEvent = max(0, recording.holdsEvent - 1)
        if recording.holdsEvent == 0, recording.isEmpty { recording.manager.closeEventGroup() }
    }

    /// The undo manager's checkpoint: pending changes are processed, so that they are registered first.
    func undoCheckpoint() {
        guard let recording = undoRecording, !recording.isApplying, !recording.isRegistering, recording.holdsEvent == 0,
              !recording.isEmpty || !deletesToPropagate.isEmpty else { return }
        processPendingChanges()
    }

    /// `rollback()` forgets every undo operation of the manager, `reset()` those of this context.
    func clearUndo(everything: Bool) {
        guard let recording = undoRecording else { return }
        recording.forget()
        if everything { recording.manager.removeAllActions() } else { recording.manager.removeAllActions(withTarget: self) }
    }

    /// Whether an object is in this context's graph (inserted, or saved and not deleted).
    func isLive(_ object: NSManagedObject) -> Bool {
        object.managedObjectContext === self && (object.lifecycle == .inserted || object.lifecycle == .persisted)
    }

    /// A slot's value as an undo operation keeps it (see ``UndoValue``).
    func undoValue(_ object: NSManagedObject, _ slot: Int) -> UndoValue {
        let raw = slot < object.values.count ? object.values[slot] : .null
        switch object.layout.kinds[slot] {
        case .attribute: return UndoValue(raw: raw, kept: .attribute)
        case .toOne: return UndoValue(raw: raw, kept: .toOne(raw.objectRef.flatMap { self.object(for: $0) }))
        case .toMany(let r): return UndoValue(raw: raw, kept: .toMany(raw.objectRefs.compactMap { self.object(for: $0) }, ordered: r.isOrdered))
        }
    }

    // MARK: - Undoing

    /// Undoes (or redoes) one event: registers the opposite event with `manager` (on its redo stack while
    /// undoing), brings back the objects the event deleted, sets the slots back, takes out the objects
    /// it inserted, and announces the changes (`ObjectsDidChange`, the fetched results controllers).
    func apply(_ event: ContextUndoEvent, registeringWith manager: UndoManager) {
        var opposite = ContextUndoEvent(revive: event.remove, remove: event.revive)
        opposite.values = event.values.map { ($0.object, $0.slot, currentUndoValue($0.object, $0.slot)) }
        registerUndo(of: opposite, with: manager)
        let recording = undoRecording
        recording?.isApplying = true
        defer { recording?.isApplying = false }
        for object in event.revive { revive(object) }
        for change in event.values { restore(change.object, change.slot, change.value.slotValue) }
        for object in event.remove where isLive(object) { markDeleted(object) }
        _ = announcePendingChanges()
        awakeUndone(event)
    }

    /// Tells each object the event touched what was undone (`awake(fromSnapshotEvents:)`), once, with
    /// every kind that applies to it.
    private func awakeUndone(_ event: ContextUndoEvent) {
        var order: [NSManagedObject] = []
        var events: [ObjectIdentifier: NSSnapshotEventType] = [:]
        func note(_ object: NSManagedObject, _ kind: NSSnapshotEventType) {
            if events[ObjectIdentifier(object)] == nil { order.append(object) }
            events[ObjectIdentifier(object), default: []].insert(kind)
        }
        for object in event.revive { note(object, .undoDeletion) }
        for object in event.remove { note(object, .undoInsertion) }
        for change in event.values { note(change.object, .undoUpdate) }
        for object in order { object.snapshotEventsDidApply(events[ObjectIdentifier(object)]!) }
    }

    private func currentUndoValue(_ object: NSManagedObject, _ slot: Int) -> UndoValue {
        if object.isFault { object.fireFault() }
        if slot < object.values.count, object.values[slot].isToManyFault, object.managedObjectContext != nil { _ = object.loadedToMany(slot) }
        return undoValue(object, slot)
    }

    /// Brings back an object an event deleted: a pending delete is cancelled (announced as an insert when
    /// the delete was announced); an object the delete took out of the context (an insert deleted again,
    /// a saved delete) is inserted again, with its object ID.
    private func revive(_ object: NSManagedObject) {
        let id = ObjectIdentifier(object)
        switch object.lifecycle {
        case .deleted where object.managedObjectContext === self:
            setLifecycle(.persisted, of: object)
            deletesToPropagate.removeAll { $0 === object }
            if unprocessed.deleted.removeValue(forKey: id) == nil {
                object.insertIsUnannounced = true
                unprocessed.inserted.append(object)
            }
        case .removed where object.managedObjectContext === self || object.managedObjectContext == nil:
            enterAsInserted(object)
        default:
            break
        }
    }

    /// Sets a slot back to `value` (both sides of a relationship are set back by their own entries).
    private func restore(_ object: NSManagedObject, _ slot: Int, _ value: Value) {
        if object.isFault { object.fireFault() }
        guard slot < object.values.count, !object.values[slot].isIdentical(to: value) else { return }
        object.values[slot] = value
        if object.managedObjectContext === self { objectDidChange(object, slot: slot) }
    }
}

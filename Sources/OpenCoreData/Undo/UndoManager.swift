import Foundation

/// Mirrors Foundation's `UndoManager` (`NSUndoManager`), which swift-corelibs-foundation does not have:
/// a recorder of undo operations, grouped, undone and redone a group at a time. A context records its
/// changes with one when you set ``NSManagedObjectContext/undoManager`` (docs/Undo.md).
///
/// Operations are closures registered with ``registerUndo(withTarget:handler:)``; an operation registered
/// while undoing goes on the redo stack, one registered while redoing on the undo stack, and one
/// registered otherwise clears the redo stack, as in Foundation.
///
/// Differences from Apple's:
/// - **Event groups.** Linux has no run loop whose passes could close the groups ``groupsByEvent`` opens.
///   A group opened automatically (by the first registration when no group is open, or by a context's
///   first change) stays open until ``undo()``, ``redo()`` or ``undoNestedGroup()`` closes it, a
///   context's `processPendingChanges()` or `save()` closes it (the end of the context's event), or you
///   call ``endUndoGrouping()``. There is no `runLoopModes`.
/// - Not isolated to the main actor (Apple's is `@MainActor`): use it on the queue of the context it
///   serves. Targets are held weakly, not unowned: an operation whose target is gone does nothing.
/// - No selector- or invocation-based registration (`registerUndo(withTarget:selector:object:)`,
///   `prepare(withInvocationTarget:)`): Linux Swift has no Objective-C messaging.
/// - Where Apple raises `NSInternalInconsistencyException` (unbalanced groups, registration without an
///   open group when ``groupsByEvent`` is off, undo inside nested groups), this traps with the message.
/// - Menu titles are English ("Undo", "Redo"): there is no localized Foundation bundle.
open class UndoManager: NSObject, @unchecked Sendable {
    /// Closed top-level groups, oldest first.
    var undoStack: [UndoGroup] = []
    var redoStack: [UndoGroup] = []
    /// The open groups, outermost first; while undoing or redoing, those that record the opposite group.
    var openGroups: [UndoGroup] = []
    /// The open groups put aside while an undo or a redo records its own group.
    var setAside: [UndoGroup] = []
    /// The open top-level group was opened by the manager (``groupsByEvent``), not by the caller.
    var eventGroupIsOpen = false
    private var disableCount = 0

    /// Mirrors `isUndoing`: whether the manager is running undo operations.
    public private(set) var isUndoing = false
    /// Mirrors `isRedoing`: whether the manager is running redo operations.
    public private(set) var isRedoing = false

    /// Mirrors `groupsByEvent` (true by default): whether registering an operation with no group open
    /// opens one. On Linux that group stays open until an undo, a redo, a context's
    /// `processPendingChanges()` or ``endUndoGrouping()`` closes it (there is no run loop). When false,
    /// open a group with ``beginUndoGrouping()`` before registering.
    open var groupsByEvent = true

    /// Mirrors `levelsOfUndo`: the most top-level groups each stack keeps (0, the default, for no limit).
    /// The oldest are dropped when a group closes beyond it, and at once when it is lowered.
    open var levelsOfUndo = 0 {
        didSet { trimStacks() }
    }

    /// Mirrors `init()`.
    public override init() {
        super.init()
    }

    // MARK: - Registering

    /// Mirrors `registerUndo(withTarget:handler:)`: records `handler`, to be called with `target` when the
    /// group it is in is undone (or redone, when registered while undoing). Ignored while registration is
    /// disabled. With no group open it opens one when ``groupsByEvent`` is true, and traps otherwise.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            precondition(groupsByEvent, "undo: \(self) is in invalid state, must begin a group before registering undo")
            beginUndoGrouping()
            eventGroupIsOpen = true
        }
        if !isUndoing, !isRedoing { redoStack.removeAll() }
        openGroups[openGroups.count - 1].items.append(.action(UndoAction(target: target) { handler($0 as! TargetType) }))
    }

    /// Mirrors `isUndoRegistrationEnabled`: false between ``disableUndoRegistration()`` and the balancing
    /// ``enableUndoRegistration()``.
    open var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Mirrors `disableUndoRegistration()`: registrations are ignored until as many
    /// ``enableUndoRegistration()`` calls balance the disabling ones.
    open func disableUndoRegistration() {
        disableCount += 1
    }

    /// Mirrors `enableUndoRegistration()`. Traps when registration is not disabled (Apple raises).
    open func enableUndoRegistration() {
        precondition(disableCount > 0, "enableUndoRegistration: \(self) has no matching disableUndoRegistration")
        disableCount -= 1
    }

    // MARK: - Groups

    /// Mirrors `groupingLevel`: how many groups are open (redo groups while redoing); 0 when none.
    open var groupingLevel: Int { openGroups.count }

    /// Mirrors `beginUndoGrouping()`: opens a group, nested in the open one if any. Posts
    /// `NSUndoManagerCheckpoint` (unless it opens a top-level group), then `NSUndoManagerDidOpenUndoGroup`.
    open func beginUndoGrouping() {
        if !openGroups.isEmpty { post(.NSUndoManagerCheckpoint) }
        openGroups.append(UndoGroup())
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// Mirrors `endUndoGrouping()`: closes the innermost open group, which joins the enclosing group, or
    /// the undo stack (the redo stack while undoing). An empty group is dropped. Posts
    /// `NSUndoManagerCheckpoint`, `NSUndoManagerWillCloseUndoGroup`, then `NSUndoManagerDidCloseUndoGroup`
    /// (with `NSUndoManagerGroupIsDiscardableKey` when the group is discardable). Traps with no group open.
    open func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "endUndoGrouping: \(self) has no matching beginUndoGrouping")
        if openGroups.count == 1 { eventGroupIsOpen = false }
        post(.NSUndoManagerCheckpoint)
        let info = Self.discardableInfo(openGroups[openGroups.count - 1])
        post(.NSUndoManagerWillCloseUndoGroup, info)
        file(openGroups.removeLast())
        post(.NSUndoManagerDidCloseUndoGroup, info)
    }

    /// Where a closed group goes: into the enclosing open group, else on the redo stack while undoing,
    /// else on the undo stack.
    private func file(_ group: UndoGroup) {
        guard !group.items.isEmpty else { return }
        if let parent = openGroups.last {
            parent.items.append(.group(group))
        } else if isUndoing {
            redoStack.append(group)
        } else {
            undoStack.append(group)
        }
        trimStacks()
    }

    /// Opens a group as ``groupsByEvent`` would, when no group is open: a context does this at the first
    /// change of an event, so that `setActionName(_:)` names the group its changes will join.
    func openEventGroupIfNeeded() {
        guard groupsByEvent, openGroups.isEmpty, isUndoRegistrationEnabled, !isUndoing, !isRedoing else { return }
        beginUndoGrouping()
        eventGroupIsOpen = true
    }

    /// Closes the group ``groupsByEvent`` opened, if it is the only one open: the end of a context's event.
    func closeEventGroup() {
        guard eventGroupIsOpen, openGroups.count == 1, !isUndoing, !isRedoing else { return }
        endUndoGrouping()
    }

    private func trimStacks() {
        guard levelsOfUndo > 0 else { return }
        if undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
        if redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
    }

    // MARK: - Undoing and redoing

    /// Mirrors `canUndo`: whether there is an operation to undo (a closed group, or the open top-level
    /// group holding some). Open groups may have to be closed before undoing, as in Foundation.
    open var canUndo: Bool {
        !undoStack.isEmpty || (isUndoing || isRedoing ? setAside : openGroups).first.map { !$0.items.isEmpty } ?? false
    }

    /// Mirrors `canRedo`: whether there is a group to redo. Posts `NSUndoManagerCheckpoint` first (a
    /// context records its pending changes then, which clears the redo stack), as Foundation does.
    open var canRedo: Bool {
        post(.NSUndoManagerCheckpoint)
        return !redoStack.isEmpty
    }

    /// Mirrors `undo()`: closes the top-level group if it is the only one open, then undoes the last
    /// group (``undoNestedGroup()``). Traps when more than one group is open (Apple raises).
    open func undo() {
        if groupingLevel == 1 { endUndoGrouping() }
        precondition(groupingLevel == 0, "undo: \(self) is in invalid state, undo was called with too many nested undo groups")
        undoNestedGroup()
    }

    /// Mirrors `undoNestedGroup()`: runs the operations of the last group — the last closed group in the
    /// open group, or the top of the undo stack when none is open — recording what they register as one
    /// group on the redo stack, named as the undone group. Posts `NSUndoManagerCheckpoint`,
    /// `NSUndoManagerWillUndoChange`, then `NSUndoManagerDidUndoChange`. A group ``groupsByEvent`` opened
    /// is closed first.
    open func undoNestedGroup() {
        post(.NSUndoManagerCheckpoint)
        precondition(!isUndoing && !isRedoing, "undoNestedGroup: \(self) is already undoing or redoing")
        if eventGroupIsOpen, groupingLevel == 1 { endUndoGrouping() }
        guard let group = takeGroupToUndo() else { return }
        post(.NSUndoManagerWillUndoChange)
        perform(group, undoing: true)
        post(.NSUndoManagerDidUndoChange, Self.discardableInfo(group))
    }

    private func takeGroupToUndo() -> UndoGroup? {
        guard let open = openGroups.last else { return undoStack.popLast() }
        guard case .group(let group)? = open.items.last else {
            preconditionFailure("undoNestedGroup: \(self) has an open group that does not end with a closed group; close it with endUndoGrouping() first")
        }
        open.items.removeLast()
        return group
    }

    /// Mirrors `redo()`: runs the operations of the last group on the redo stack, recording what they
    /// register as one group on the undo stack (the redo stack is kept). Posts `NSUndoManagerCheckpoint`,
    /// `NSUndoManagerWillRedoChange`, then `NSUndoManagerDidRedoChange`. Traps while undoing (Apple raises).
    open func redo() {
        post(.NSUndoManagerCheckpoint)
        precondition(!isUndoing, "redo: \(self) is in invalid state, redo was called while undoing")
        if eventGroupIsOpen, groupingLevel == 1 { endUndoGrouping() }
        guard let group = redoStack.popLast() else { return }
        post(.NSUndoManagerWillRedoChange)
        perform(group, undoing: false)
        post(.NSUndoManagerDidRedoChange, Self.discardableInfo(group))
    }

    /// Runs a group's operations inside a group of their own, which records what they register.
    private func perform(_ group: UndoGroup, undoing: Bool) {
        let eventGroupWasOpen = eventGroupIsOpen
        setAside = openGroups
        openGroups = []
        if undoing { isUndoing = true } else { isRedoing = true }
        beginUndoGrouping()
        openGroups[0].actionName = group.actionName
        group.perform()
        while !openGroups.isEmpty { endUndoGrouping() }
        isUndoing = false
        isRedoing = false
        openGroups = setAside
        setAside = []
        eventGroupIsOpen = eventGroupWasOpen
    }

    // MARK: - Action names

    /// Mirrors `setActionName(_:)`: names the open top-level group (the group being recorded while
    /// undoing or redoing), or the last group on the undo stack when none is open. An empty name removes it.
    open func setActionName(_ actionName: String) {
        (openGroups.first ?? undoStack.last)?.actionName = actionName
    }

    /// The group ``undo()`` would undo.
    private var groupToUndo: UndoGroup? {
        if let open = openGroups.first, !open.items.isEmpty, !isUndoing, !isRedoing { return open }
        return undoStack.last
    }

    /// Mirrors `undoActionName`: the name of the group ``undo()`` would undo; empty when it has none or
    /// there is nothing to undo.
    open var undoActionName: String { groupToUndo?.actionName ?? "" }

    /// Mirrors `redoActionName`: the name of the group ``redo()`` would redo; empty when it has none or
    /// there is nothing to redo.
    open var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Mirrors `undoMenuItemTitle`: "Undo" followed by ``undoActionName``, if any ("Undo Paste"). Apple's
    /// is `nil` when there is nothing to undo; this one is "Undo" then (the Swift type is not optional).
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// Mirrors `redoMenuItemTitle`: "Redo" followed by ``redoActionName``, if any.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// Mirrors `undoMenuTitle(forUndoActionName:)`: "Undo" and the name; override it to localize. (Apple
    /// localizes "Undo" from Foundation's bundle; Linux has none: English.)
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// Mirrors `redoMenuTitle(forUndoActionName:)`: "Redo" and the name; override it to localize.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    /// Mirrors `setActionIsDiscardable(_:)`: marks the operation registered last (in the open group, or
    /// the last group on the undo stack) as one that may be dropped when a document cannot be saved. A
    /// group all of whose operations are discardable is reported with `NSUndoManagerGroupIsDiscardableKey`.
    open func setActionIsDiscardable(_ discardable: Bool) {
        (openGroups.last ?? undoStack.last)?.markLastAction(discardable: discardable)
    }

    /// Mirrors `undoActionIsDiscardable`: whether every operation of the group ``undo()`` would undo is
    /// discardable.
    open var undoActionIsDiscardable: Bool { groupToUndo?.isDiscardable ?? false }

    /// Mirrors `redoActionIsDiscardable`: whether every operation of the group ``redo()`` would redo is
    /// discardable.
    open var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }

    // MARK: - Clearing

    /// Mirrors `removeAllActions()`: empties both stacks (open groups too) and enables registration again.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        if !isUndoing, !isRedoing { openGroups.removeAll() }
        eventGroupIsOpen = false
        disableCount = 0
    }

    /// Mirrors `removeAllActions(withTarget:)`: removes the operations whose target is `target` from both
    /// stacks and the open groups, and the groups left empty. Registration stays as it was.
    open func removeAllActions(withTarget target: Any) {
        let target = target as AnyObject
        for group in undoStack + redoStack + openGroups + setAside { group.removeActions(withTarget: target) }
        undoStack.removeAll { $0.items.isEmpty }
        redoStack.removeAll { $0.items.isEmpty }
    }

    // MARK: - Notifications

    func post(_ name: Notification.Name, _ userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }

    static func discardableInfo(_ group: UndoGroup?) -> [AnyHashable: Any]? {
        guard let group, group.isDiscardable else { return nil }
        return [NSUndoManagerGroupIsDiscardableKey: NSNumber(value: true)]
    }
}

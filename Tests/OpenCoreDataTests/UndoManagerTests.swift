import Foundation
import OpenCoreData
import Testing

/// Foundation's `UndoManager` as Apple documents it, on its own (the context's use of it: UndoTests).
@Suite("UndoManager")
struct UndoManagerTests {
    /// A value whose setter registers its own inverse, the usual shape of undoable code.
    final class Box {
        let manager: UndoManager
        var log: [String] = []
        var value: Int { didSet { log.append("\(value)") } }
        init(_ manager: UndoManager, _ value: Int = 0) {
            self.manager = manager
            self.value = value
        }
        func set(_ new: Int) {
            let old = value
            manager.registerUndo(withTarget: self) { $0.set(old) }
            value = new
        }
    }

    /// Records the names of a manager's notifications, in order.
    final class NotificationLog: @unchecked Sendable {
        var names: [String] = []
        var discardable: [String] = []
        private var observers: [NSObjectProtocol] = []
        init(_ manager: UndoManager) {
            let all: [Notification.Name] = [.NSUndoManagerCheckpoint, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
                                            .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange, .NSUndoManagerDidOpenUndoGroup,
                                            .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup]
            for name in all {
                observers.append(NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { [unowned self] note in
                    let short = note.name.rawValue.replacingOccurrences(of: "NSUndoManager", with: "").replacingOccurrences(of: "Notification", with: "")
                    names.append(short)
                    if (note.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? NSNumber)?.boolValue == true { discardable.append(short) }
                })
            }
        }
        deinit { for o in observers { NotificationCenter.default.removeObserver(o) } }
    }

    @Test func undoAndRedoRunTheRegisteredClosures() {
        let manager = UndoManager()
        let box = Box(manager)
        box.set(1)
        #expect(manager.groupingLevel == 1)  // groupsByEvent opened a group
        #expect(manager.canUndo)
        manager.undo()
        #expect(box.value == 0)
        #expect(manager.groupingLevel == 0)
        #expect(!manager.canUndo)
        #expect(manager.canRedo)
        manager.redo()
        #expect(box.value == 1)
        #expect(manager.canUndo)
        #expect(!manager.canRedo)
        manager.undo()
        #expect(box.value == 0)
    }

    @Test func operationsRegisteredWhileUndoingGoOnTheRedoStack() {
        let manager = UndoManager()
        var states: [(undoing: Bool, redoing: Bool)] = []
        final class Target {}
        let target = Target()
        func register() {
            manager.registerUndo(withTarget: target) { _ in
                states.append((manager.isUndoing, manager.isRedoing))
                register()
            }
        }
        register()
        manager.undo()
        #expect(manager.canRedo)
        #expect(!manager.canUndo)
        manager.redo()
        #expect(manager.canUndo)
        #expect(states.map(\.undoing) == [true, false])
        #expect(states.map(\.redoing) == [false, true])
        #expect(!manager.isUndoing && !manager.isRedoing)
    }

    @Test func aNewRegistrationClearsTheRedoStack() {
        let manager = UndoManager()
        let box = Box(manager)
        box.set(1)
        manager.undo()
        #expect(manager.canRedo)
        box.set(2)
        #expect(!manager.canRedo)
        manager.undo()
        #expect(box.value == 0)
    }

    @Test func nestedGroupsAreUndoneTogetherAndOneByOneWithUndoNestedGroup() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let box = Box(manager)
        manager.beginUndoGrouping()
        box.set(1)
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        box.set(2)
        box.set(3)
        manager.endUndoGrouping()
        // undoNestedGroup inside the open group undoes the closed nested group only.
        manager.undoNestedGroup()
        #expect(box.value == 1)
        #expect(manager.groupingLevel == 1)
        manager.beginUndoGrouping()
        box.set(4)
        manager.endUndoGrouping()
        box.set(5)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
        // One undo reverses the whole top-level group, nested groups included.
        box.log = []
        manager.undo()
        #expect(box.value == 0)
        #expect(box.log == ["4", "1", "0"])
        #expect(!manager.canUndo)
        // (Registering box.set(4) cleared the redo of the nested undo.) Redo sets everything again.
        manager.redo()
        #expect(box.value == 5)
    }

    @Test func levelsOfUndoKeepsTheNewestGroups() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let box = Box(manager)
        for value in 1...4 {
            box.set(value)
            manager.endUndoGrouping()
        }
        manager.undo()
        manager.undo()
        #expect(box.value == 2)
        #expect(!manager.canUndo)
        // Lowering the limit drops the oldest groups at once (here: of the redo stack).
        manager.levelsOfUndo = 1
        manager.redo()
        #expect(box.value == 3)
        #expect(!manager.canRedo)
        // 0 is no limit.
        manager.levelsOfUndo = 0
        for value in 10...15 {
            box.set(value)
            manager.endUndoGrouping()
        }
        for _ in 0..<6 { manager.undo() }
        #expect(box.value == 3)
    }

    @Test func registrationCanBeDisabledAndIsEnabledWhenBalanced() {
        let manager = UndoManager()
        let box = Box(manager)
        #expect(manager.isUndoRegistrationEnabled)
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        box.set(1)
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        box.set(2)
        #expect(!manager.canUndo)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        box.set(3)
        manager.undo()
        #expect(box.value == 2)
    }

    @Test func removeAllActionsEmptiesBothStacksAndEnablesRegistration() {
        let manager = UndoManager()
        let box = Box(manager)
        box.set(1)
        manager.endUndoGrouping()
        box.set(2)
        manager.undo()
        manager.disableUndoRegistration()
        manager.removeAllActions()
        #expect(!manager.canUndo && !manager.canRedo)
        #expect(manager.isUndoRegistrationEnabled)
        #expect(manager.groupingLevel == 0)
    }

    @Test func removeAllActionsWithTargetKeepsTheOthers() {
        let manager = UndoManager()
        let a = Box(manager), b = Box(manager)
        a.set(1)
        b.set(1)
        manager.endUndoGrouping()
        a.set(2)
        manager.endUndoGrouping()
        manager.disableUndoRegistration()
        manager.removeAllActions(withTarget: a)
        #expect(!manager.isUndoRegistrationEnabled)
        manager.enableUndoRegistration()
        // The group holding only a's operation is gone; b's is still undoable.
        manager.undo()
        #expect(a.value == 2)
        #expect(b.value == 0)
        #expect(!manager.canUndo)
    }

    @Test func anOperationWhoseTargetIsGoneDoesNothing() {
        let manager = UndoManager()
        var ran = false
        do {
            final class Target {}
            let target = Target()
            manager.registerUndo(withTarget: target) { _ in ran = true }
        }
        manager.undo()
        #expect(!ran)
    }

    @Test func actionNamesAndMenuTitles() {
        let manager = UndoManager()
        let box = Box(manager)
        #expect(manager.undoActionName == "")
        #expect(manager.undoMenuItemTitle == "Undo")
        box.set(1)
        manager.setActionName("Change Value")
        #expect(manager.undoActionName == "Change Value")
        #expect(manager.undoMenuItemTitle == "Undo Change Value")
        manager.undo()
        // The redo group takes the undone group's name.
        #expect(manager.redoActionName == "Change Value")
        #expect(manager.redoMenuItemTitle == "Redo Change Value")
        #expect(manager.undoActionName == "")
        #expect(manager.undoMenuTitle(forUndoActionName: "Paste") == "Undo Paste")
        #expect(manager.redoMenuTitle(forUndoActionName: "") == "Redo")
        manager.redo()
        #expect(manager.undoActionName == "Change Value")
        manager.setActionName("")
        #expect(manager.undoActionName == "")
    }

    @Test func menuTitlesCanBeLocalizedByASubclass() {
        final class French: UndoManager {
            override func undoMenuTitle(forUndoActionName actionName: String) -> String { "Annuler \(actionName)" }
        }
        let manager = French()
        let box = Box(manager)
        box.set(1)
        manager.setActionName("la saisie")
        #expect(manager.undoMenuItemTitle == "Annuler la saisie")
    }

    @Test func discardableGroupsAreReported() {
        let manager = UndoManager()
        let log = NotificationLog(manager)
        final class Target {}
        let target = Target()
        manager.registerUndo(withTarget: target) { _ in
            manager.registerUndo(withTarget: target) { _ in }
            manager.setActionIsDiscardable(true)
        }
        manager.setActionIsDiscardable(true)
        #expect(manager.undoActionIsDiscardable)
        manager.endUndoGrouping()
        #expect(log.discardable == ["WillCloseUndoGroup", "DidCloseUndoGroup"])
        manager.undo()
        #expect(log.discardable.contains("DidUndoChange"))
        #expect(manager.redoActionIsDiscardable)
        let box = Box(manager)
        box.set(1)
        #expect(!manager.undoActionIsDiscardable)
    }

    @Test func notificationsArePostedInFoundationsOrder() {
        let manager = UndoManager()
        let log = NotificationLog(manager)
        let box = Box(manager)
        box.set(1)  // opens a top-level group: no checkpoint
        #expect(log.names == ["DidOpenUndoGroup"])
        manager.beginUndoGrouping()  // a nested group: checkpoint first
        manager.endUndoGrouping()
        #expect(log.names == ["DidOpenUndoGroup", "Checkpoint", "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
        log.names = []
        manager.undo()
        #expect(log.names == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",  // undo() closes the open group
                              "Checkpoint", "WillUndoChange",
                              "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",  // the redo group
                              "DidUndoChange"])
        log.names = []
        _ = manager.canRedo
        #expect(log.names == ["Checkpoint"])
        log.names = []
        manager.redo()
        #expect(log.names.first == "Checkpoint")
        #expect(log.names.dropFirst().first == "WillRedoChange")
        #expect(log.names.last == "DidRedoChange")
    }

    @Test func withoutGroupsByEventAGroupMustBeOpen() async {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let box = Box(manager)
        manager.beginUndoGrouping()
        box.set(1)
        manager.endUndoGrouping()
        manager.undo()
        #expect(box.value == 0)
        await #expect(processExitsWith: .failure) {
            let manager = UndoManager()
            manager.groupsByEvent = false
            manager.registerUndo(withTarget: manager) { _ in }
        }
    }

    @Test func unbalancedGroupingTraps() async {
        await #expect(processExitsWith: .failure) {
            UndoManager().endUndoGrouping()
        }
        await #expect(processExitsWith: .failure) {
            let manager = UndoManager()
            manager.beginUndoGrouping()
            manager.beginUndoGrouping()
            manager.undo()
        }
    }
}

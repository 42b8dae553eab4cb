import Foundation

/// One registered undo operation: the closure and the target it runs on. The target is held weakly
/// (Apple's manager keeps an unowned reference): an operation whose target is gone does nothing.
struct UndoAction {
    weak var target: AnyObject?
    let run: (AnyObject) -> Void
    /// Set by `setActionIsDiscardable(_:)`.
    var isDiscardable = false

    func perform() {
        if let target { run(target) }
    }
}

/// A group of undo operations and nested groups, undone together, the last registered first. A closed
/// group is never empty: closing an empty group drops it.
final class UndoGroup {
    enum Item {
        case action(UndoAction)
        case group(UndoGroup)
    }

    var items: [Item] = []
    /// Set by `setActionName(_:)`; carried over to the group that undoing or redoing this one records.
    var actionName = ""

    /// Whether every operation in it was marked discardable (`NSUndoManagerGroupIsDiscardableKey`).
    var isDiscardable: Bool {
        !items.isEmpty && items.allSatisfy {
            switch $0 {
            case .action(let action): return action.isDiscardable
            case .group(let group): return group.isDiscardable
            }
        }
    }

    /// Runs its operations, the last registered first.
    func perform() {
        for item in items.reversed() {
            switch item {
            case .action(let action): action.perform()
            case .group(let group): group.perform()
            }
        }
    }

    /// Removes the operations whose target is `target`, and the nested groups left empty.
    func removeActions(withTarget target: AnyObject) {
        items.removeAll { item in
            switch item {
            case .action(let action): return action.target === target
            case .group(let group):
                group.removeActions(withTarget: target)
                return group.items.isEmpty
            }
        }
    }

    /// Marks the last operation registered in it (or in its last nested group) discardable or not.
    func markLastAction(discardable: Bool) {
        guard let last = items.indices.last else { return }
        switch items[last] {
        case .action(var action):
            action.isDiscardable = discardable
            items[last] = .action(action)
        case .group(let group):
            group.markLastAction(discardable: discardable)
        }
    }
}

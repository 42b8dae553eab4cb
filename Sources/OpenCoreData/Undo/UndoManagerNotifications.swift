import Foundation

extension Notification.Name {
    /// Mirrors `NSUndoManagerCheckpoint`: posted by an ``UndoManager`` when it opens a nested group or
    /// closes a group, when undoing or redoing starts, and when ``UndoManager/canRedo`` is read. A context
    /// records its pending changes then.
    public static let NSUndoManagerCheckpoint = Notification.Name("NSUndoManagerCheckpointNotification")
    /// Mirrors `NSUndoManagerWillUndoChange`: posted before the operations of a group are undone.
    public static let NSUndoManagerWillUndoChange = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Mirrors `NSUndoManagerDidUndoChange`: posted after a group was undone (userInfo:
    /// `NSUndoManagerGroupIsDiscardableKey` when it was discardable).
    public static let NSUndoManagerDidUndoChange = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Mirrors `NSUndoManagerWillRedoChange`: posted before the operations of a group are redone.
    public static let NSUndoManagerWillRedoChange = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Mirrors `NSUndoManagerDidRedoChange`: posted after a group was redone (userInfo:
    /// `NSUndoManagerGroupIsDiscardableKey` when it was discardable).
    public static let NSUndoManagerDidRedoChange = Notification.Name("NSUndoManagerDidRedoChangeNotification")
    /// Mirrors `NSUndoManagerDidOpenUndoGroup`: posted after a group was opened.
    public static let NSUndoManagerDidOpenUndoGroup = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Mirrors `NSUndoManagerWillCloseUndoGroup`: posted before a group closes (userInfo:
    /// `NSUndoManagerGroupIsDiscardableKey` when it is discardable).
    public static let NSUndoManagerWillCloseUndoGroup = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Mirrors `NSUndoManagerDidCloseUndoGroup`: posted after a group closed (userInfo:
    /// `NSUndoManagerGroupIsDiscardableKey` when it is discardable).
    public static let NSUndoManagerDidCloseUndoGroup = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
}

/// Mirrors `NSUndoManagerGroupIsDiscardableKey`: the userInfo key whose value (an `NSNumber`, true) says
/// the undo group holds discardable operations only.
public let NSUndoManagerGroupIsDiscardableKey = "NSUndoManagerGroupIsDiscardableKey"

import Foundation

/// Mirrors Core Data's `NSSnapshotEventType`: why an object's values were reset from a snapshot, passed
/// to ``NSManagedObject/awake(fromSnapshotEvents:)``. The raw values are Apple's (`1 << 1` … `1 << 6`).
public struct NSSnapshotEventType: OptionSet, Sendable, Hashable {
    /// Mirrors `rawValue`.
    public let rawValue: UInt
    /// Mirrors `init(rawValue:)`.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Mirrors `undoInsertion`: an undo took back the object's insertion.
    public static let undoInsertion = NSSnapshotEventType(rawValue: 1 << 1)
    /// Mirrors `undoDeletion`: an undo took back the object's deletion.
    public static let undoDeletion = NSSnapshotEventType(rawValue: 1 << 2)
    /// Mirrors `undoUpdate`: an undo took back changes of the object's properties.
    public static let undoUpdate = NSSnapshotEventType(rawValue: 1 << 3)
    /// Mirrors `rollback`: the context's `rollback()` restored the object's saved values.
    public static let rollback = NSSnapshotEventType(rawValue: 1 << 4)
    /// Mirrors `refresh`: `refresh(_:mergeChanges: true)` took the store's values into the object.
    public static let refresh = NSSnapshotEventType(rawValue: 1 << 5)
    /// Mirrors `mergePolicy`: a merge policy resolved a conflict of the object during a save.
    public static let mergePolicy = NSSnapshotEventType(rawValue: 1 << 6)
}

import Foundation

/// Mirrors Core Data's `NSPersistentStoreRequestType`: what a request sent to a persistent store asks
/// for, with Core Data's raw values.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    /// A fetch (`NSFetchRequest`, `NSAsynchronousFetchRequest`).
    case fetchRequestType = 1
    /// A save (`NSSaveChangesRequest`).
    case saveRequestType = 2
    /// A batch insert (`NSBatchInsertRequest`).
    case batchInsertRequestType = 5
    /// A batch update (`NSBatchUpdateRequest`).
    case batchUpdateRequestType = 6
    /// A batch delete (`NSBatchDeleteRequest`).
    case batchDeleteRequestType = 7
}

/// Mirrors Core Data's `NSPersistentStoreRequest`: the criteria of a request sent to persistent stores —
/// the base class of `NSFetchRequest`, `NSSaveChangesRequest` and `NSAsynchronousFetchRequest`.
open class NSPersistentStoreRequest: NSObject, @unchecked Sendable {
    /// Mirrors `affectedStores`: the stores the request goes to; `nil` (the default) sends it to every
    /// store of the coordinator. A store not in the array is not searched: a fetch whose `affectedStores`
    /// leave out the coordinator's store finds nothing in the store (unsaved inserted objects of the
    /// context that match are still included, as they belong to no store yet).
    open var affectedStores: [NSPersistentStore]?

    /// Mirrors `requestType`: each subclass names its type. Core Data's base class names none; a Swift
    /// enum cannot hold "none", so a plain `NSPersistentStoreRequest` (or a subclass that does not
    /// override this) reports `.fetchRequestType`.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Mirrors `init()`.
    public override init() { super.init() }

    /// Whether the request reaches `store`: `affectedStores` is `nil` or holds it.
    func reaches(_ store: NSPersistentStore?) -> Bool {
        guard let affectedStores else { return true }
        guard let store else { return false }
        return affectedStores.contains { $0 === store }
    }
}

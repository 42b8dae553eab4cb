import Foundation

/// Mirrors `NSInsertedObjectsKey`.
public let NSInsertedObjectsKey = "inserted"
/// Mirrors `NSUpdatedObjectsKey`.
public let NSUpdatedObjectsKey = "updated"
/// Mirrors `NSDeletedObjectsKey`.
public let NSDeletedObjectsKey = "deleted"
/// Mirrors `NSRefreshedObjectsKey`.
public let NSRefreshedObjectsKey = "refreshed"
/// Mirrors `NSInvalidatedObjectsKey`.
public let NSInvalidatedObjectsKey = "invalidated"
/// Mirrors `NSInvalidatedAllObjectsKey`.
public let NSInvalidatedAllObjectsKey = "invalidatedAll"

extension NSManagedObjectContext {
    /// Mirrors `NSManagedObjectContext.didChangeObjectsNotification` (`NSManagedObjectContextObjectsDidChange`).
    public static let didChangeObjectsNotification = Notification.Name("NSObjectsChangedInManagingContextNotification")
    /// Mirrors `NSManagedObjectContext.willSaveObjectsNotification` (`NSManagedObjectContextWillSave`).
    public static let willSaveObjectsNotification = Notification.Name("NSManagingContextWillSaveChangesNotification")
    /// Mirrors `NSManagedObjectContext.didSaveObjectsNotification` (`NSManagedObjectContextDidSave`).
    public static let didSaveObjectsNotification = Notification.Name("NSManagingContextDidSaveChangesNotification")
    /// Mirrors `NSManagedObjectContext.didSaveObjectIDsNotification`: the same save, by object ID
    /// (`NSInsertedObjectIDsKey`, `NSUpdatedObjectIDsKey`, `NSDeletedObjectIDsKey`), safe to read on any thread.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")

    /// Mirrors `processPendingChanges()`: announces the inserts, updates and deletes made since the last
    /// call with `ObjectsDidChange` (userInfo: `NSInsertedObjectsKey`, `NSUpdatedObjectsKey`,
    /// `NSDeletedObjectsKey`, each a `Set<NSManagedObject>`). Linux has no run loop to call it at the end
    /// of an event: it runs before each save, and you may call it yourself.
    public func processPendingChanges() {
        let changes = unprocessed
        guard !changes.isEmpty else { return }
        unprocessed = UnannouncedChanges()
        var info: [AnyHashable: Any] = [:]
        if !changes.inserted.isEmpty { info[NSInsertedObjectsKey] = Set(changes.inserted.values) }
        if !changes.updated.isEmpty { info[NSUpdatedObjectsKey] = Set(changes.updated.values.map(\.object)) }
        if !changes.deleted.isEmpty { info[NSDeletedObjectsKey] = Set(changes.deleted.values) }
        info[ChangedKeys.userInfoKey] = ChangedKeys(changes.updated.values.map { ($0.object.objectID, $0.slots) })
        NotificationCenter.default.post(name: NSManagedObjectContext.didChangeObjectsNotification, object: self, userInfo: info)
    }
}

extension Notification.Name {
    /// Mirrors `NSManagedObjectContextObjectsDidChange`.
    public static let NSManagedObjectContextObjectsDidChange = NSManagedObjectContext.didChangeObjectsNotification
    /// Mirrors `NSManagedObjectContextWillSave`.
    public static let NSManagedObjectContextWillSave = NSManagedObjectContext.willSaveObjectsNotification
    /// Mirrors `NSManagedObjectContextDidSave`.
    public static let NSManagedObjectContextDidSave = NSManagedObjectContext.didSaveObjectsNotification
}

/// For each updated object of an `ObjectsDidChange`, the storage slots whose values changed (what a
/// fetched results controller needs to decide whether an update can move an object).
struct ChangedKeys: @unchecked Sendable {
    static let userInfoKey = "OpenCoreDataChangedKeys"
    let slots: [NSManagedObjectID: Set<Int>]
    init(_ pairs: [(NSManagedObjectID, Set<Int>)]) {
        slots = Dictionary(pairs, uniquingKeysWith: { a, b in a.union(b) })
    }
}

/// Rows of a merged save that were not registered in the merging context: not announced in
/// `ObjectsDidChange` (Core Data announces registered objects only), but handed to fetched results
/// controllers, which evaluate updated rows against their requests and let deleted ones move a
/// `fetchLimit`/`fetchOffset` window (Core Data's controllers miss both).
struct UnregisteredChanges: @unchecked Sendable {
    static let userInfoKey = "OpenCoreDataUnregisteredChanges"
    let updated: [SavedChanges.Row]
    let deleted: [NSManagedObjectID]
}

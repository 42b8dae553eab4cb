import Foundation

/// What a context's save notifications carry (``NSPersistentStoreCoordinator/postsChangeSets``).
struct SavePayloads {
    /// `DidSave`'s sets of objects.
    let objects: Bool
    /// `didSaveObjectIDsNotification`'s sets of IDs.
    let objectIDs: Bool
    /// The saved rows merging contexts read (``SavedChanges``).
    let rows: Bool

    /// Everything, as Core Data posts it.
    static let all = SavePayloads(objects: true, objectIDs: true, rows: true)
    /// The saved rows only: a coordinator whose ``NSPersistentStoreCoordinator/postsChangeSets`` is off.
    static let rowsOnly = SavePayloads(objects: false, objectIDs: false, rows: true)
}

extension NSPersistentStoreCoordinator {
    /// Not in Core Data: whether the contexts of this coordinator put their sets of objects and IDs in
    /// `ObjectsDidChange`, `DidSave` and `didSaveObjectIDsNotification` (true by default, as Core Data always
    /// does). An app that reads none of those sets may turn it off to save the cost of building them for
    /// large saves; the notifications are still posted, and merging contexts, fetched results controllers and
    /// persistent history are told of every change either way (docs/Store.md, "Notifications and their sets").
    public var postsChangeSets: Bool {
        get { changeSets.withLock { $0 } }
        set { changeSets.withLock { $0 = newValue } }
    }
}

extension NSManagedObjectContext {
    /// What this context's save notifications carry: its coordinator's choice (a child context's, its root's).
    var savePayloads: SavePayloads {
        var context = self
        while let parent = context.parent { context = parent }
        return context.persistentStoreCoordinator?.postsChangeSets ?? true ? .all : .rowsOnly
    }
}

/// The names the library posts under: the public constants' names, read without noting an interest
/// (posting is not observing).
extension Notification.Name {
    static let contextObjectsDidChange = Notification.Name("NSObjectsChangedInManagingContextNotification")
    static let contextWillSave = Notification.Name("NSManagingContextWillSaveChangesNotification")
    static let contextDidSave = Notification.Name("NSManagingContextDidSaveChangesNotification")
    static let contextDidSaveObjectIDs = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
}

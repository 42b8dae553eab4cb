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
    public static let didChangeObjectsNotification = Notification.Name.contextObjectsDidChange
    /// Mirrors `NSManagedObjectContext.willSaveObjectsNotification` (`NSManagedObjectContextWillSave`).
    public static let willSaveObjectsNotification = Notification.Name.contextWillSave
    /// Mirrors `NSManagedObjectContext.didSaveObjectsNotification` (`NSManagedObjectContextDidSave`).
    public static let didSaveObjectsNotification = Notification.Name.contextDidSave
    /// Mirrors `NSManagedObjectContext.didSaveObjectIDsNotification`: the same save, by object ID
    /// (`NSInsertedObjectIDsKey`, `NSUpdatedObjectIDsKey`, `NSDeletedObjectIDsKey`), safe to read on any thread.
    public static let didSaveObjectIDsNotification = Notification.Name.contextDidSaveObjectIDs
    /// Mirrors `NSManagedObjectContext.didMergeChangesObjectIDsNotification`: posted by a context after it
    /// merged a save (`mergeChanges(fromContextDidSave:)`, `automaticallyMergesChangesFromParent`,
    /// `mergeChanges(fromRemoteContextSave:into:)`), with the merged object IDs under
    /// `NSInsertedObjectIDsKey`, `NSUpdatedObjectIDsKey`, `NSDeletedObjectIDsKey` and, for the registered
    /// objects it refreshed, `NSRefreshedObjectIDsKey`.
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")

    /// Mirrors `NSManagedObjectContext.NotificationKey`: the userInfo keys of the context's notifications,
    /// the same strings as the `NS…Key` constants.
    public enum NotificationKey: String, Sendable {
        case insertedObjects = "inserted"
        case updatedObjects = "updated"
        case deletedObjects = "deleted"
        case refreshedObjects = "refreshed"
        case invalidatedObjects = "invalidated"
        case invalidatedAllObjects = "invalidatedAll"
        case insertedObjectIDs = "inserted_objectIDs"
        case updatedObjectIDs = "updated_objectIDs"
        case deletedObjectIDs = "deleted_objectIDs"
        case refreshedObjectIDs = "refreshed_objectIDs"
        case invalidatedObjectIDs = "invalidated_objectIDs"
        /// The query generation of a context pinned to one (`NSQueryGenerationToken`).
        case queryGeneration = "NSManagedObjectContextQueryGenerationKey"
    }

    /// Mirrors `processPendingChanges()`: announces the inserts, updates and deletes made since the last
    /// call with `ObjectsDidChange` (userInfo: `NSInsertedObjectsKey`, `NSUpdatedObjectsKey`,
    /// `NSDeletedObjectsKey`, each a `Set<NSManagedObject>`). The delete rules of deleted objects run
    /// first (nullify, cascade), as in Core Data. Linux has no run loop to call it at the end
    /// of an event: it runs before each save, and you may call it yourself.
    public func processPendingChanges() {
        _ = announcePendingChanges()
    }

    /// ``processPendingChanges()``, returning the set of inserted objects it announced when that was every
    /// inserted object of the context, with the inserted list's mark at that moment (`save()` posts the
    /// same set in `DidSave` rather than hashing every object again, if it is still the whole list).
    /// The sets are made unless the coordinator's ``NSPersistentStoreCoordinator/postsChangeSets`` is off
    /// and no fetched results controller of the context needs them; then the notification has none.
    func announcePendingChanges() -> AnnouncedInserts? {
        if !deletesToPropagate.isEmpty, propagatesDeletesAtEndOfEvent { propagateDeletes() }
        if undoRecording != nil { registerUndoEvent() }
        let changes = unprocessed
        guard !changes.isEmpty else { return nil }
        unprocessed = UnannouncedChanges()
        let wanted = savePayloads.objects || !changeObservers.isEmpty
        var insertedSet = Set<NSManagedObject>(minimumCapacity: wanted ? changes.inserted.count : 0)
        var insertedCount = 0
        for object in changes.inserted where object.announceInsert() {
            insertedCount += 1
            if wanted { insertedSet.insert(object) }
        }
        guard insertedCount > 0 || !changes.deleted.isEmpty || !changes.updated.isEmpty else { return nil }
        guard wanted else {
            NotificationCenter.default.post(name: .contextObjectsDidChange, object: self)
            return nil
        }
        let announced = insertedSet.count == inserted.count ? AnnouncedInserts(objects: insertedSet, mark: inserted.mark) : nil
        var info: [AnyHashable: Any] = [:]
        if !insertedSet.isEmpty { info[NSInsertedObjectsKey] = insertedSet }
        // One pass over the updates for both the set and the changed slots (an object is updated once).
        var updatedSet = Set<NSManagedObject>(minimumCapacity: changes.updated.count)
        var changedSlots = [NSManagedObjectID: Set<Int>](minimumCapacity: changes.updated.count)
        for (object, slots) in changes.updated.values {
            updatedSet.insert(object)
            changedSlots[object.objectID] = slots
        }
        let deletedSet = changes.deleted.isEmpty ? [] : Set(changes.deleted.values)
        if !updatedSet.isEmpty { info[NSUpdatedObjectsKey] = updatedSet }
        if !deletedSet.isEmpty { info[NSDeletedObjectsKey] = deletedSet }
        changeObservers.tell({
            var ours = AnnouncedChanges(changedSlots: changedSlots)
            (ours.inserted, ours.updated, ours.deleted) = (insertedSet, updatedSet, deletedSet)
            return .objects(ours)
        }())
        NotificationCenter.default.post(name: .contextObjectsDidChange, object: self, userInfo: info)
        return announced
    }
}

extension Notification.Name {
    /// Mirrors `NSManagedObjectContextObjectsDidChange` (noting, as
    /// ``NSManagedObjectContext/didChangeObjectsNotification`` does, that its sets may be read).
    public static var NSManagedObjectContextObjectsDidChange: Notification.Name { NSManagedObjectContext.didChangeObjectsNotification }
    /// Mirrors `NSManagedObjectContextWillSave`.
    public static let NSManagedObjectContextWillSave = Notification.Name.contextWillSave
    /// Mirrors `NSManagedObjectContextDidSave` (noting, as ``NSManagedObjectContext/didSaveObjectsNotification``
    /// does, that its sets may be read).
    public static var NSManagedObjectContextDidSave: Notification.Name { NSManagedObjectContext.didSaveObjectsNotification }
    /// Mirrors `NSManagedObjectContextDidSaveObjectIDs` (noting, as
    /// ``NSManagedObjectContext/didSaveObjectIDsNotification`` does, that its sets may be read).
    public static var NSManagedObjectContextDidSaveObjectIDs: Notification.Name { NSManagedObjectContext.didSaveObjectIDsNotification }
    /// Mirrors `NSManagedObjectContextDidMergeChangesObjectIDs`.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = NSManagedObjectContext.didMergeChangesObjectIDsNotification
    /// Mirrors `NSPersistentStoreCoordinatorStoresWillChange`: posted before a store is removed
    /// (`NSRemovedPersistentStoresKey`).
    public static let NSPersistentStoreCoordinatorStoresWillChange = Notification.Name("NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Mirrors `NSPersistentStoreCoordinatorStoresDidChange`: posted after a store was added
    /// (`NSAddedPersistentStoresKey`) or removed (`NSRemovedPersistentStoresKey`).
    public static let NSPersistentStoreCoordinatorStoresDidChange = Notification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Mirrors `NSPersistentStoreCoordinatorWillRemoveStore`: posted with the store as the object, before
    /// it is removed.
    public static let NSPersistentStoreCoordinatorWillRemoveStore = Notification.Name("NSPersistentStoreCoordinatorWillRemoveStoreNotification")
}

/// Mirrors `NSRefreshedObjectIDsKey`.
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// Mirrors `NSInvalidatedObjectIDsKey`.
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"
/// Mirrors `NSAddedPersistentStoresKey`.
public let NSAddedPersistentStoresKey = "added"
/// Mirrors `NSRemovedPersistentStoresKey`.
public let NSRemovedPersistentStoresKey = "removed"
/// Mirrors `NSUUIDChangedPersistentStoresKey`.
public let NSUUIDChangedPersistentStoresKey = "changedUUID"

/// The set of inserted objects an `ObjectsDidChange` announced when it was every inserted object of the
/// context, and the inserted list's mark then.
struct AnnouncedInserts {
    let objects: Set<NSManagedObject>
    let mark: InsertedObjects.Mark
}

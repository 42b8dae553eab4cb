import Foundation

/// Mirrors Core Data's `NSSaveChangesRequest`: the changes of one save, as a persistent store receives
/// them (a custom store's `execute(_:with:)`). Core Data builds it when a context saves; apps do not
/// execute it themselves.
open class NSSaveChangesRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// Mirrors `insertedObjects`: the objects the save inserts.
    public let insertedObjects: Set<NSManagedObject>?
    /// Mirrors `updatedObjects`: the objects the save updates.
    public let updatedObjects: Set<NSManagedObject>?
    /// Mirrors `deletedObjects`: the objects the save deletes.
    public let deletedObjects: Set<NSManagedObject>?
    /// Mirrors `lockedObjects`: objects not changed whose stored versions the save must find unchanged
    /// (optimistic locking).
    public let lockedObjects: Set<NSManagedObject>?

    /// Mirrors `init(insertedObjects:updatedObjects:deletedObjects:lockedObjects:)`.
    public init(insertedObjects: Set<NSManagedObject>?, updatedObjects: Set<NSManagedObject>?,
                deletedObjects: Set<NSManagedObject>?, lockedObjects: Set<NSManagedObject>?) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.lockedObjects = lockedObjects
        super.init()
    }

    /// Mirrors `init(inserted:updated:deleted:locked:)` (the Swift name of the same initializer in older SDKs).
    public convenience init(inserted: Set<NSManagedObject>?, updated: Set<NSManagedObject>?,
                            deleted: Set<NSManagedObject>?, locked: Set<NSManagedObject>?) {
        self.init(insertedObjects: inserted, updatedObjects: updated, deletedObjects: deleted, lockedObjects: locked)
    }

    /// Mirrors `requestType`: `.saveRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .saveRequestType }
}

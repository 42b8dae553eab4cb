import Foundation
import Synchronization

/// Mirrors Core Data's `NSManagedObjectContext`: a scratch pad of managed objects — one object per ID
/// (uniquing), pending inserts, updates and deletes, fetches that see those pending changes, and saves
/// that write them to the store in one transaction.
///
/// Split by verb: this file holds the registry and change tracking; `+Fetch`, `+Save` and
/// `+Notifications` the rest. A context is confined to one thread at a time, as in Core Data.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// Mirrors `NSManagedObjectContextConcurrencyType`.
    public enum ConcurrencyType: UInt, Sendable {
        case confinementConcurrencyType = 0
        case privateQueueConcurrencyType = 1
        case mainQueueConcurrencyType = 2
    }

    /// Mirrors `concurrencyType`.
    public let concurrencyType: ConcurrencyType
    /// Mirrors `persistentStoreCoordinator`.
    public var persistentStoreCoordinator: NSPersistentStoreCoordinator?
    /// Mirrors `name`.
    public var name: String?
    /// Mirrors `mergePolicy` (an `NSMergePolicy`; `NSErrorMergePolicy` by default): how `save()` resolves
    /// rows changed in the store since the objects read them.
    public var mergePolicy: Any = NSErrorMergePolicy
    /// The context's serial queue (the main queue for `.mainQueueConcurrencyType`).
    let queue: DispatchQueue
    /// The thread running a `perform` / `performAndWait` block on the queue (0 when none), for the queue
    /// checks (see `ConcurrencyDebug`).
    let blockThread = Atomic<UInt>(0)
    var mergeObserver: NSObjectProtocol?
    var _parent: NSManagedObjectContext?

    var registry: [ObjectKey: NSManagedObject] = [:]
    var inserted: [ObjectIdentifier: NSManagedObject] = [:]
    var deleted: [ObjectIdentifier: NSManagedObject] = [:]
    /// Registered, saved objects whose values were set since the last save (they may be back to equal).
    var touched: [ObjectIdentifier: NSManagedObject] = [:]
    private var insertionCounter = 0

    /// Changes not yet announced by `ObjectsDidChange` (see `processPendingChanges()`).
    var unprocessed = ChangeSet()

    /// Mirrors `init(concurrencyType:)`.
    public init(concurrencyType ct: ConcurrencyType) {
        self.concurrencyType = ct
        self.queue = NSManagedObjectContext.makeQueue(for: ct, name: "NSManagedObjectContext \(ct)")
        super.init()
    }

    deinit {
        if let mergeObserver { NotificationCenter.default.removeObserver(mergeObserver) }
    }

    var mergeType: NSMergePolicyType { (mergePolicy as? NSMergePolicy)?.mergeType ?? .errorMergePolicyType }

    // MARK: - Registered objects

    /// Mirrors `registeredObjects`.
    public var registeredObjects: Set<NSManagedObject> { Set(registry.values) }
    /// Mirrors `insertedObjects`.
    public var insertedObjects: Set<NSManagedObject> { Set(inserted.values) }
    /// Mirrors `updatedObjects`: saved objects with values that differ from the saved ones.
    public var updatedObjects: Set<NSManagedObject> { Set(touched.values.filter { $0.isUpdated && !$0._isDeleted }) }
    /// Mirrors `deletedObjects`.
    public var deletedObjects: Set<NSManagedObject> { Set(deleted.values) }
    /// Mirrors `hasChanges`.
    public var hasChanges: Bool {
        !inserted.isEmpty || !deleted.isEmpty || touched.values.contains { $0.isUpdated }
    }

    /// Mirrors `registeredObject(for:)`.
    public func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? { registry[objectID.key] }

    /// Mirrors `object(with:)`: the registered object, or a fault for the ID (not checked against the store;
    /// firing a fault whose row is gone leaves it with empty values).
    public func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        checkQueue("object(with:)")
        if let object = registry[objectID.key] { return object }
        let object = NSManagedObject.makeFetched(entity: objectID.entity, id: objectID, context: self)
        registry[objectID.key] = object
        return object
    }

    /// Mirrors `existingObject(with:)`: the object, loaded from the store if needed; throws
    /// `NSManagedObjectReferentialIntegrityError` if the store has no such row.
    public func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        checkQueue("existingObject(with:)")
        if let object = registry[objectID.key] {
            if object._isFault, object.prefetched == nil { try load([object]) }
            if !object._isFault || object.prefetched != nil { return object }
        }
        guard let pk = objectID.primaryKey, let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSManagedObjectReferentialIntegrityError, "No object with ID \(objectID.uriRepresentation().absoluteString) exists.")
        }
        let root = objectID.entity.layout.root.layout.entityID
        let rows = try coordinator.withStore { try $0.loadRows(root: root, pks: [pk]) }
        guard let row = rows[pk] else {
            throw CoreDataError(NSManagedObjectReferentialIntegrityError, "No object with ID \(objectID.uriRepresentation().absoluteString) exists in the store.")
        }
        return try materialize(row, faulting: false)
    }

    /// The registered object for a store row, created (as a fault holding the row's values) if needed.
    func materialize(_ row: StoreRow, faulting: Bool, store: NSPersistentStore? = nil) throws -> NSManagedObject {
        let store = try store ?? persistentStoreCoordinator!.store()
        guard let entity = store.backend.entitiesByID[row.entityID] else {
            throw CoreDataError(NSCoreDataError, "The store has a row of unknown entity number \(row.entityID)")
        }
        let key = ObjectKey.permanent(root: entity.layout.root.layout.entityID, pk: row.pk)
        let object: NSManagedObject
        if let registered = registry[key] {
            object = registered
        } else {
            let id = NSManagedObjectID(entity: entity, key: key, storeIdentifier: store.identifier)
            object = NSManagedObject.makeFetched(entity: entity, id: id, context: self)
            registry[key] = object
        }
        if object._isFault, object.prefetched == nil, let values = row.values {
            if faulting {
                object.prefetched = values
                object.prefetchedVersion = row.version
            } else {
                object.fill(with: values, version: row.version)
            }
        }
        return object
    }

    // MARK: - Changes

    /// Mirrors `insert(_:)`.
    open func insert(_ object: NSManagedObject) {
        checkQueue("insert(_:)")
        if object.managedObjectContext === self, object._isInserted { return }
        precondition(object.managedObjectContext == nil || object.managedObjectContext === self,
                     "An NSManagedObject may only be in (or observed by) a single NSManagedObjectContext.")
        let id = ObjectIdentifier(object)
        if object._isDeleted, deleted[id] != nil {
            // Re-inserting an object deleted in this context undoes the delete.
            deleted[id] = nil
            object._isDeleted = false
            unprocessed.deleted[id] = nil
            return
        }
        object.managedObjectContext = self
        object._isInserted = true
        registry[object.objectID.key] = object
        inserted[id] = object
        insertionCounter += 1
        object.insertionIndex = insertionCounter
        unprocessed.inserted[id] = object
        object.awakeFromInsert()
    }

    /// Mirrors `delete(_:)`. Deleting an object inserted and not yet saved simply forgets it.
    open func delete(_ object: NSManagedObject) {
        checkQueue("delete(_:)")
        precondition(object.managedObjectContext === self, "delete(_:) of an object of another context")
        let id = ObjectIdentifier(object)
        guard !object._isDeleted else { return }
        // As in Core Data, a fault fires first: the delete needs the row version it read (a fault
        // deleted unread would look like a conflict at save).
        if object._isFault { object.fulfill() }
        object.prepareForDeletion()
        if object._isInserted {
            inserted[id] = nil
            registry[object.objectID.key] = nil
            object._isInserted = false
            object._isDeleted = true
            if unprocessed.inserted.removeValue(forKey: id) == nil { unprocessed.deleted[id] = object }
            unprocessed.updatedKeys[id] = nil
            return
        }
        object._isDeleted = true
        deleted[id] = object
        unprocessed.deleted[id] = object
        unprocessed.updatedKeys[id] = nil
    }

    /// Called by an object when one of its values changed.
    func objectDidChange(_ object: NSManagedObject, slot: Int) {
        let id = ObjectIdentifier(object)
        if !object._isInserted { touched[id] = object }
        if unprocessed.inserted[id] == nil, !object._isDeleted {
            unprocessed.updatedKeys[id, default: []].insert(slot)
            unprocessed.updatedObjects[id] = object
        }
    }

    /// Mirrors `obtainPermanentIDs(for:)`: gives inserted objects their store keys before saving.
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        guard let coordinator = persistentStoreCoordinator else { return }
        let store = try coordinator.store()
        let temporary = objects.filter { $0.objectID.isTemporaryID }
        let groups = Dictionary(grouping: temporary) { $0.layout.root.layout.entityID }
        for (root, group) in groups {
            let keys = try coordinator.withStore { try $0.allocatePrimaryKeys(root: root, count: group.count) }
            for (object, pk) in zip(group, keys) {
                registry[object.objectID.key] = nil
                object.objectID = NSManagedObjectID(entity: object.entity, key: .permanent(root: root, pk: pk), storeIdentifier: store.identifier)
                if object.managedObjectContext === self { registry[object.objectID.key] = object }
            }
        }
    }

    /// Mirrors `rollback()`: forgets inserted objects, restores deleted and updated ones to their saved values.
    open func rollback() {
        for object in inserted.values {
            registry[object.objectID.key] = nil
            object._isInserted = false
            object.managedObjectContext = nil
        }
        for object in deleted.values { object._isDeleted = false }
        for object in touched.values where !object._isFault {
            if let snapshot = object.snapshot { object.values = snapshot }
        }
        for object in deleted.values where !object._isFault {
            if let snapshot = object.snapshot { object.values = snapshot }
        }
        inserted.removeAll()
        deleted.removeAll()
        touched.removeAll()
        unprocessed = ChangeSet()
    }

    /// Mirrors `reset()`: forgets every registered object (they become unusable), posting
    /// `ObjectsDidChange` with `NSInvalidatedAllObjectsKey`.
    open func reset() {
        for object in registry.values { object.managedObjectContext = nil }
        for object in inserted.values { object.managedObjectContext = nil }
        registry.removeAll()
        inserted.removeAll()
        deleted.removeAll()
        touched.removeAll()
        unprocessed = ChangeSet()
        NotificationCenter.default.post(name: NSManagedObjectContext.didChangeObjectsNotification, object: self,
                                        userInfo: [NSInvalidatedAllObjectsKey: true])
    }

    // MARK: - Faults

    /// Loads a fault's values: its whole batch when it came from a batched fetch, else just its row.
    func fireFault(_ object: NSManagedObject) {
        var group = [object]
        if let batch = object.batch {
            let start = (object.batchIndex / batch.size) * batch.size
            let end = min(start + batch.size, batch.primaryKeys.count)
            group = batch.primaryKeys[start..<end].compactMap { pk in
                registry[.permanent(root: batch.root, pk: pk)].flatMap { $0._isFault && $0.prefetched == nil ? $0 : nil }
            }
            if !group.contains(where: { $0 === object }) { group.append(object) }
        }
        do {
            try load(group)
        } catch {
            // Core Data raises here; a fault whose row cannot be read keeps empty values.
        }
        if object._isFault {
            object.fill(with: object.layout.attributes.map { _ in .null }, version: 0)
            object.rowMissing = true
        }
    }

    /// Reads the rows of faults: from the parent context, or the coordinator's row cache, else in one
    /// query per hierarchy.
    func load(_ objects: [NSManagedObject], bypassingCache: Bool = false) throws {
        if let parent { return loadFromParent(parent, objects) }
        guard let coordinator = persistentStoreCoordinator else { return }
        let store = try coordinator.store().backend
        var missing: [NSManagedObject] = []
        for object in objects {
            guard let pk = object.objectID.primaryKey else { continue }
            if !bypassingCache, let row = store.rowCache.row(root: object.layout.root.layout.entityID, pk: pk), let values = row.values {
                object.fill(with: values, version: row.version)
            } else {
                missing.append(object)
            }
        }
        let groups = Dictionary(grouping: missing) { $0.layout.root.layout.entityID }
        for (root, group) in groups {
            let rows = try store.loadRows(root: root, pks: group.map { $0.objectID.primaryKey! })
            for object in group {
                if let row = rows[object.objectID.primaryKey!], let values = row.values { object.fill(with: values, version: row.version) }
            }
        }
    }
}

/// Changes of a context between two `processPendingChanges()`.
struct ChangeSet {
    var inserted: [ObjectIdentifier: NSManagedObject] = [:]
    var deleted: [ObjectIdentifier: NSManagedObject] = [:]
    var updatedObjects: [ObjectIdentifier: NSManagedObject] = [:]
    var updatedKeys: [ObjectIdentifier: Set<Int>] = [:]
    var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && updatedKeys.isEmpty }
}

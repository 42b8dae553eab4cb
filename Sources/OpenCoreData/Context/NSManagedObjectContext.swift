import Foundation
import Synchronization

/// Mirrors Core Data's `NSManagedObjectContext`: a scratch pad of managed objects — one object per ID
/// (uniquing), pending inserts, updates and deletes, fetches that see those pending changes, and saves
/// that write them to the store in one transaction.
///
/// Split by verb: this file holds the registry and change tracking; the `NSManagedObjectContext+*.swift`
/// files beside it hold the rest, one verb each. A context is confined to one thread at a time, as in Core Data.
/// Mirrors `NSManagedObjectContextConcurrencyType`. `.confinementConcurrencyType` (deprecated by Apple)
/// runs `perform` blocks inline on the caller's thread and is never queue-checked.
public enum NSManagedObjectContextConcurrencyType: UInt, Sendable {
    case confinementConcurrencyType = 0
    case privateQueueConcurrencyType = 1
    case mainQueueConcurrencyType = 2
}

open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// Mirrors `NSManagedObjectContext.ConcurrencyType`: the queue a context made with ``init(_:)`` runs
    /// on, `.mainQueue` or `.privateQueue`.
    public struct ConcurrencyType: Hashable, Sendable {
        /// The legacy enumeration value it stands for (``concurrencyType`` reports it).
        let legacy: NSManagedObjectContextConcurrencyType
        /// Mirrors `NSManagedObjectContext.ConcurrencyType.mainQueue`.
        public static let mainQueue = ConcurrencyType(legacy: .mainQueueConcurrencyType)
        /// Mirrors `NSManagedObjectContext.ConcurrencyType.privateQueue`.
        public static let privateQueue = ConcurrencyType(legacy: .privateQueueConcurrencyType)
    }

    /// Mirrors `concurrencyType`.
    public let concurrencyType: NSManagedObjectContextConcurrencyType
    /// Mirrors `persistentStoreCoordinator`.
    public var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        didSet { if mergeListening != nil, oldValue !== persistentStoreCoordinator { listenForSaves() } }
    }
    /// Mirrors `name`.
    public var name: String?
    /// Mirrors `transactionAuthor`: the author persistent history records for this context's saves
    /// (``NSPersistentHistoryTransaction/author``; `nil` records none). Core Data takes it from the
    /// context that saves; a child context's save into its parent is not a store transaction, so the
    /// author recorded is the parent's when it saves.
    public var transactionAuthor: String?
    /// Mirrors `mergePolicy` (an `NSMergePolicy`; `NSErrorMergePolicy` by default): how `save()` resolves
    /// rows changed in the store since the objects read them.
    public var mergePolicy: Any = NSErrorMergePolicy
    /// The context's serial queue (the main queue for `.mainQueueConcurrencyType`).
    let queue: DispatchQueue
    /// The thread running a `perform` / `performAndWait` block on the queue (0 when none), for the queue
    /// checks (see `ConcurrencyDebug`).
    let blockThread = Atomic<UInt>(0)
    /// The listeners this context merges saves from (``automaticallyMergesChangesFromParent``).
    var mergeListening: SaveListeners?
    /// For OpenSwiftData: where this context's automatic merges run instead of ``perform(_:)`` (a model
    /// actor's executor, which runs the actor's jobs and so the context's work one at a time).
    package var mergeScheduler: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
    /// The children that merge this context's saves as they happen.
    let mergingChildren = SaveListeners()
    /// The context's fetched results controllers, told of its changes as typed values (see ``ContextChange``).
    let changeObservers = ContextObservers()
    var _parent: NSManagedObjectContext?
    /// Store keys taken by objects its children inserted (see ``ChildStoreKeys``).
    var childStoreKeys = ChildStoreKeys()

    var registry = ObjectRegistry()
    /// The stores `assign(_:to:)` chose for inserted objects (see +Stores).
    var assignedStores: [ObjectIdentifier: NSPersistentStore] = [:]
    /// While a fetched results controller fetches (`fetchObjects(_:plan:)`), the objects its fetch
    /// registered anew; `nil` otherwise.
    var newlyRegistered: [NSManagedObject]?
    /// Objects whose lifecycle is `.inserted` / `.deleted`: kept by ``setLifecycle(_:of:)``,
    /// ``setPersisted(_:listedAt:)`` and a store save's inserts once the list is emptied whole
    /// (``emptyInsertedList(ifWhole:listedAt:)``) alone.
    private(set) var inserted = InsertedObjects()
    private(set) var deleted: [ObjectIdentifier: NSManagedObject] = [:]
    /// Registered, saved objects whose values were set since the last save (they may be back to equal).
    var touched: [ObjectIdentifier: NSManagedObject] = [:]
    /// Deleted objects whose delete rules have not run yet (see `propagateDeletes()`).
    var deletesToPropagate: [NSManagedObject] = []

    /// Mirrors `propagatesDeletesAtEndOfEvent`: whether the delete rules of deleted objects (nullify,
    /// cascade, deny) run when pending changes are processed (true, the default) or only when the context
    /// saves (false). Linux has no run loop to end an event: "the end of an event" is
    /// `processPendingChanges()`, which runs before each save and whenever you call it.
    public var propagatesDeletesAtEndOfEvent = true

    /// Mirrors `shouldDeleteInaccessibleFaults`: when a fault fires and its row is gone from the store,
    /// true (the default) makes the object deleted (nil and zero values, in `deletedObjects`, not
    /// validated, gone at the next save); false leaves it holding nils, not deleted, and a save of changes
    /// to it reports the conflict (Core Data raises instead, which Swift cannot catch).
    public var shouldDeleteInaccessibleFaults = true

    /// Mirrors `shouldHandleInaccessibleFault(_:for:triggeredByProperty:)`: asked when a fault's row is
    /// gone whether to make the object deleted (see ``shouldDeleteInaccessibleFaults``). The default logs
    /// and answers ``shouldDeleteInaccessibleFaults``. `property` is always nil here (Core Data passes nil
    /// when it cannot tell which property fired the fault).
    open func shouldHandleInaccessibleFault(_ fault: NSManagedObject, for oid: NSManagedObjectID,
                                            triggeredByProperty property: NSPropertyDescription?) -> Bool {
        defaultHandlesInaccessibleFault(fault, oid)
    }

    /// Mirrors `userInfo`: the context's own dictionary, for whatever the app keeps with it.
    public private(set) lazy var userInfo = NSMutableDictionary()

    /// Changes not yet announced by `ObjectsDidChange` (see `processPendingChanges()`).
    var unprocessed = UnannouncedChanges()
    /// Mirrors `stalenessInterval`: how old (in seconds) a row read or written earlier by any context of
    /// the coordinator may be for a fault to use it instead of reading the store again. Negative (the
    /// default, -1): any age; 0: faults always read the store. Fetches always read the store.
    public var stalenessInterval: TimeInterval = -1

    /// Mirrors `retainsRegisteredObjects`: whether the context keeps every object registered in it until
    /// `reset()`. False (the default, as in Core Data): it keeps the objects with unsaved changes
    /// (inserted, updated, deleted) and lets go of the others once nothing else holds them, so that a
    /// long-lived context that fetches and drops objects stays the size of what is held (the registry
    /// sweeps them at a fetch, when it has grown to twice what it kept last time: see
    /// `ObjectRegistry+Sweep.swift`). An object let go is made again, as a fault, when its ID is asked for.
    public var retainsRegisteredObjects = false

    /// What the context records for its ``undoManager`` (`nil` when it has none).
    var undoRecording: UndoRecording?
    /// The query generation the context is pinned to (see `+Generations`); `nil`: unpinned.
    var queryGeneration: NSQueryGenerationToken?

    /// Mirrors `init(_:)`: a context on the main queue or a private queue of its own.
    public convenience init(_ type: ConcurrencyType) {
        self.init(concurrencyType: type.legacy)
    }

    /// Mirrors `init(concurrencyType:)`. `required`, so that a subclass or an extension reaches it through
    /// a metatype (`Self(concurrencyType:)`), as Objective-C lets Core Data's.
    public required init(concurrencyType ct: NSManagedObjectContextConcurrencyType) {
        self.concurrencyType = ct
        self.queue = NSManagedObjectContext.makeQueue(for: ct, name: "NSManagedObjectContext \(ct)")
        super.init()
    }

    deinit {
        registry.detachBatches(reset: false)
    }


    // MARK: - Registered objects

    /// Mirrors `registeredObjects`.
    public var registeredObjects: Set<NSManagedObject> { Set(allRegisteredObjects) }

    /// Every registered object: those in the registry, and inserted objects not given a key yet (which
    /// enter it when they are, see `NSManagedObject.objectKey`).
    var allRegisteredObjects: [NSManagedObject] {
        registry.values + inserted.objects.filter { $0.assignedKey == nil }
    }
    /// Mirrors `insertedObjects`.
    public var insertedObjects: Set<NSManagedObject> { Set(inserted.objects) }
    /// Mirrors `updatedObjects`: saved objects with values that differ from the saved ones.
    public var updatedObjects: Set<NSManagedObject> { Set(updatedObjectList) }
    /// Mirrors `deletedObjects`.
    public var deletedObjects: Set<NSManagedObject> { Set(deleted.values) }
    /// For OpenSwiftData: ``insertedObjects``, ``updatedObjects`` and ``deletedObjects`` as lists (no set is hashed:
    /// `ModelContext.didSave` lists their identifiers).
    package var changedObjectLists: (inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        (inserted.objects, updatedObjectList, Array(deleted.values))
    }
    private var updatedObjectList: [NSManagedObject] { touched.values.filter { $0.isUpdated && !$0.isDeleted } }
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
        let objectID = ownID(objectID)
        let object = NSManagedObject.makeFetched(entity: objectID.entity, id: objectID, context: self)
        registry[objectID.key] = object
        return object
    }

    /// The same ID with this context's model's entity: an ID made by another coordinator whose model is
    /// an equal but distinct instance names the entity of that model.
    func ownID(_ id: NSManagedObjectID) -> NSManagedObjectID {
        guard let model = persistentStoreCoordinator?.managedObjectModel, id.entity.managedObjectModel !== model,
              let name = id.entity.name, let entity = model.entitiesByName[name], entity.layout != nil else { return id }
        return NSManagedObjectID(entity: entity, key: id.key, storeIdentifier: id.storeIdentifier)
    }

    /// Mirrors `existingObject(with:)`: the object, loaded from the store if needed; throws
    /// `NSManagedObjectReferentialIntegrityError` if the store has no such row.
    public func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        checkQueue("existingObject(with:)")
        if let object = registry[objectID.key] {
            if object.faultState.needsRow { try readRows(of: [object]) }
            if !object.faultState.needsRow { return object }
        }
        guard objectID.primaryKey != nil, let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSManagedObjectReferentialIntegrityError, "No object with ID \(objectID.uriRepresentation().absoluteString) exists.")
        }
        guard let row = try coordinator.loadRows([objectID.key], in: try storeReadScope())[objectID.key] else {
            throw CoreDataError(NSManagedObjectReferentialIntegrityError, "No object with ID \(objectID.uriRepresentation().absoluteString) exists in the store.")
        }
        guard case .permanent(let root, _) = objectID.key else { return try registeredObject(for: row, keepingFault: false) }
        return try registeredObject(for: row, keepingFault: false, keyRoot: root)
    }

    /// The registered object for a store row, made if needed. A fault that must read its row takes this
    /// one: as its values (`keepingFault: false`), or held for when it fires (`true`: firing costs no query).
    /// `keyRoot`: the key root of the store the row was read from (`nil`: the entity's first store).
    func registeredObject(for row: StoreRow, keepingFault: Bool, keyRoot: Int? = nil, storeIdentifier: String? = nil) throws -> NSManagedObject {
        let coordinator = persistentStoreCoordinator!
        guard let entity = coordinator.managedObjectModel.entity(number: row.entityID) else {
            throw CoreDataError(NSCoreDataError, "The store has a row of unknown entity number \(row.entityID)")
        }
        let root = keyRoot ?? coordinator.defaultKeyRoot(entity.layout.rootEntityID)
        let key = ObjectKey.permanent(root: root, pk: row.pk)
        let object: NSManagedObject
        if let registered = registry[key] {
            object = registered
        } else {
            let id = NSManagedObjectID(entity: entity, key: key, storeIdentifier: try storeIdentifier ?? coordinator.storeIdentifier(root: root))
            object = NSManagedObject.makeFetched(entity: entity, id: id, context: self)
            registry[key] = object
            newlyRegistered?.append(object)
        }
        if object.faultState.needsRow, let values = row.values {
            if keepingFault { object.holdRow(values, version: row.version) } else { object.takeRow(values, version: row.version) }
        }
        return object
    }

    // MARK: - Changes

    /// Moves an object to another stage of its life, keeping the context's inserted and deleted sets in
    /// step: the one place either changes.
    func setLifecycle(_ state: Lifecycle, of object: NSManagedObject) {
        let old = object.lifecycle
        object.lifecycle = state
        listLifecycle(of: object, from: old, to: state)
    }

    /// Keeps the inserted and deleted sets in step with an object whose lifecycle went from `old` to
    /// `state` (``setLifecycle(_:of:)``, and ``enterAsInserted(_:)``, which sets the lifecycle with the rest
    /// of the object's inserted state).
    @inline(__always) private func listLifecycle(of object: NSManagedObject, from old: Lifecycle, to state: Lifecycle) {
        if state == .inserted, old != .inserted { inserted.add(object) } else if state != .inserted, old == .inserted { inserted.remove() }
        if state == .deleted { deleted[ObjectIdentifier(object)] = object } else if old == .deleted { deleted[ObjectIdentifier(object)] = nil }
    }

    /// Makes a save's inserted objects persisted: all at once when they are the whole inserted list taken
    /// at `mark` (an import), else one by one.
    func setPersisted(_ objects: [NSManagedObject], listedAt mark: InsertedObjects.Mark) {
        let wholeList = emptyInsertedList(ifWhole: objects, listedAt: mark)
        for object in objects { setPersisted(object, wholeList: wholeList) }
    }

    /// Empties the inserted list at once when `objects`, taken at `mark`, are all of it (a save of every
    /// inserted object, before each is made persisted with ``setPersisted(_:wholeList:)``).
    func emptyInsertedList(ifWhole objects: [NSManagedObject], listedAt mark: InsertedObjects.Mark) -> Bool {
        inserted.removeAll(ifWhole: objects, listedAt: mark)
    }

    /// Makes one inserted object persisted: directly when its context's inserted list was emptied at once
    /// (``InsertedObjects/removeAll(ifWhole:listedAt:)``), else through ``setLifecycle(_:of:)``.
    @inline(__always) func setPersisted(_ object: NSManagedObject, wholeList: Bool) {
        if wholeList { object.lifecycle = .persisted } else { setLifecycle(.persisted, of: object) }
    }

    /// Mirrors `insert(_:)`.
    open func insert(_ object: NSManagedObject) {
        checkQueue("insert(_:)")
        if object.managedObjectContext === self, object.isInserted { return }
        precondition(object.managedObjectContext == nil || object.managedObjectContext === self,
                     "An NSManagedObject may only be in (or observed by) a single NSManagedObjectContext.")
        if UndoRecording.everUsed.load(ordering: .relaxed) { undoRecording?.willChangeLife(of: object) }
        let id = ObjectIdentifier(object)
        if object.lifecycle == .deleted, object.managedObjectContext === self {
            // Re-inserting an object deleted in this context undoes the delete.
            setLifecycle(.persisted, of: object)
            unprocessed.deleted[id] = nil
            return
        }
        enterAsInserted(object)
        object.awakeFromInsert()
    }

    /// Makes an object inserted in this context (without `awakeFromInsert()`).
    @inline(__always) func enterAsInserted(_ object: NSManagedObject) {
        let old = object.lifecycle
        object.enterInserted(self, insertionIndex: inserted.nextIndex())
        // Registered under its key if it has one; else when it is first given one (`objectKey`).
        if let key = object.assignedKey { registry[key] = object }
        listLifecycle(of: object, from: old, to: .inserted)
        unprocessed.inserted.append(object)
    }

    /// Mirrors `delete(_:)`. Deleting an object inserted and not yet saved simply forgets it.
    open func delete(_ object: NSManagedObject) {
        checkQueue("delete(_:)")
        precondition(object.managedObjectContext === self, "delete(_:) of an object of another context")
        guard !object.isDeleted else { return }
        undoRecording?.willChangeLife(of: object)
        // As in Core Data, a fault fires first: the delete needs the row version it read (a fault
        // deleted unread would look like a conflict at save).
        if object.isFault { object.fireFault() }
        object.prepareForDeletion()
        if !object.layout.relationshipSlots.isEmpty { deletesToPropagate.append(object) }
        markDeleted(object)
    }

    /// Makes an object deleted (an inserted one forgotten), without its delete rules.
    func markDeleted(_ object: NSManagedObject) {
        let id = ObjectIdentifier(object)
        if object.isInserted {
            if let key = object.assignedKey { registry[key] = nil }
            setLifecycle(.removed, of: object)
            if object.insertIsUnannounced {
                object.insertIsUnannounced = false  // its entry in `unprocessed.inserted` no longer counts
            } else {
                unprocessed.deleted[id] = object
            }
            unprocessed.updated[id] = nil
            return
        }
        setLifecycle(.deleted, of: object)
        unprocessed.deleted[id] = object
        unprocessed.updated[id] = nil
    }

    /// Called by an object when one of its values changed.
    func objectDidChange(_ object: NSManagedObject, slot: Int) {
        let id = ObjectIdentifier(object)
        if !object.isInserted { touched[id] = object }
        if !object.insertIsUnannounced, !object.isDeleted {
            unprocessed.updated[id, default: (object, [])].slots.insert(slot)
        }
    }

    /// Mirrors `obtainPermanentIDs(for:)`: gives inserted objects their store keys before saving. The
    /// context's changed objects that name them (relationships) name them by the new keys from then on.
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        guard let coordinator = persistentStoreCoordinator else { return }
        let temporary = objects.filter { $0.objectID.isTemporaryID }
        let groups = Dictionary(grouping: temporary) { insertKeyRoot($0, coordinator) }
        var renamed: [(ObjectKey, ObjectKey)] = []
        for (root, group) in groups {
            let backend = try coordinator.backend(root: root)
            let identifier = backend.identifier
            let keys = try backend.permanentKeys(for: group, root: ObjectKey.entityRoot(root))
            for (object, pk) in zip(group, keys) {
                if let key = object.assignedKey {
                    registry[key] = nil
                    renamed.append((key, .permanent(root: root, pk: pk)))
                }
                object.objectID = NSManagedObjectID(entity: object.entity, key: .permanent(root: root, pk: pk), storeIdentifier: identifier)
                if object.managedObjectContext === self { registry[object.objectID.key] = object }
            }
        }
        let renaming = KeyRenaming(renamed)
        guard !renaming.isEmpty else { return }
        for object in [inserted.objects, Array(touched.values)].joined() where !object.isFault && !object.layout.relationshipSlots.isEmpty {
            object.values = renaming.apply(object.values, object.layout)
        }
    }

    /// Mirrors `assign(_:to:)`: the store an inserted object will be saved in, one of the stores whose
    /// configuration holds its entity (without it, the first such store added). A store that does not
    /// hold the entity, a store the coordinator does not hold, or an object that is not inserted in this
    /// context traps (Core Data raises).
    public func assign(_ object: Any, to store: NSPersistentStore) {
        guard let object = object as? NSManagedObject, object.managedObjectContext === self, object.isInserted else {
            preconditionFailure("assign(_:to:): \(object) is not an object inserted in this context")
        }
        guard persistentStoreCoordinator?.persistentStores.contains(where: { $0 === store }) == true else {
            preconditionFailure("assign(_:to:): the store at \(store.url?.path ?? "?") is not one of this context's coordinator's stores")
        }
        guard persistentStoreCoordinator?.storesHolding(object.layout.rootEntityID).contains(where: { $0 === store }) == true else {
            preconditionFailure("assign(_:to:): the store at \(store.url?.path ?? "?") (configuration \(store.configurationName)) does not hold entity \(object.entity.name ?? "?")")
        }
        assignedStores[ObjectIdentifier(object)] = store
    }

    /// Mirrors `rollback()`: forgets inserted objects, restores deleted and updated ones to their saved
    /// values, and empties the undo manager's stacks (`removeAllActions()`).
    open func rollback() {
        if undoRecording != nil { clearUndo(everything: true) }
        for object in inserted.objects {
            object.insertIsUnannounced = false
            if let key = object.assignedKey { registry[key] = nil }
            object.managedObjectContext = nil
            setLifecycle(.new, of: object)
        }
        let restored = Array(deleted.values) + touched.values.filter { !$0.isDeleted }
        for object in deleted.values {
            setLifecycle(.persisted, of: object)
            if !object.isFault, let snapshot = object.snapshot { object.values = snapshot }
        }
        for object in touched.values where !object.isFault {
            if let snapshot = object.snapshot { object.values = snapshot }
            object.clearSaveMarks()
        }
        touched.removeAll()
        deletesToPropagate.removeAll()
        unprocessed = UnannouncedChanges()
        for object in restored { object.snapshotEventsDidApply(.rollback) }
    }

    /// Mirrors `reset()`: forgets every registered object (they become unusable), posting
    /// `ObjectsDidChange` with `NSInvalidatedAllObjectsKey`. The undo manager forgets this context's
    /// operations (`removeAllActions(withTarget:)`), which named those objects.
    open func reset() {
        if undoRecording != nil { clearUndo(everything: false) }
        advanceQueryGeneration()
        let objects = Array(registry.values) + inserted.objects
        registry.detachBatches(reset: true)
        for object in objects where !object.isBare {
            object.insertIsUnannounced = false
            object.managedObjectContext = nil
            setLifecycle(.detached, of: object)
        }
        registry.removeAll()
        assignedStores.removeAll()
        childStoreKeys.removeAll()
        touched.removeAll()
        deletesToPropagate.removeAll()
        unprocessed = UnannouncedChanges()
        changeObservers.tell(.invalidatedAll)
        NotificationCenter.default.post(name: .contextObjectsDidChange, object: self,
                                        userInfo: [NSInvalidatedAllObjectsKey: true])
    }

    // MARK: - Faults

    /// Reads a fault's row: the rows of its whole batch when it came from a batched fetch, else its own.
    /// A row that is not in the store is gone: the object holds nils and is handled as Core Data handles
    /// an inaccessible fault (``inaccessibleFaultFired(_:)``). A store that fails to answer is not a row
    /// that is gone: its error is thrown and the object stays a fault (see docs/Faults.md, "When the
    /// store fails").
    func readRowOfFault(_ object: NSManagedObject) throws {
        var group = [object]
        var prefetching: [PrefetchNode] = []
        var chunk: BatchChunk?
        if case .inBatch(let batch, let index) = object.faultState {
            // The batch's own objects, not the registry's: looking keys up would enter every batched
            // object in the registry's table (see ``ObjectRegistry/register(_:allNew:)``).
            let range = batch.chunk(of: index)
            if range.upperBound <= batch.objects.count {
                group = batch.objects[range].filter { $0.managedObjectContext === self && $0.faultState.needsRow }
            }
            if !group.contains(where: { $0 === object }) { group.append(object) }
            prefetching = batch.prefetch
            chunk = BatchChunk(batch, range)
        }
        try readRows(of: group)
        if let chunk { markBatch(chunk, of: group) }
        try prefetch(prefetching, for: group)
        if object.isFault {
            object.takeRow(object.layout.properties.map { _ in .null }, version: 0)
            object.faultState = .rowGone
            inaccessibleFaultFired(object)
        }
    }

    /// Reads the rows of faults: from the parent context, or through the coordinator (its row cache,
    /// else one query per hierarchy).
    func readRows(of objects: [NSManagedObject], bypassingCache: Bool = false) throws {
        if let parent {
            adoptParentsStoreKeys(parent)
            return try readRowsFromParent(parent, objects)
        }
        guard let coordinator = persistentStoreCoordinator else { return }
        let scope = try storeReadScope()
        var byRoot: [Int: (objects: [NSManagedObject], pks: [Int64])] = [:]
        for object in objects {
            guard case .permanent(let root, let pk) = object.objectKey else { continue }
            byRoot[root, default: ([], [])].objects.append(object)
            byRoot[root]!.pks.append(pk)
        }
        for (root, group) in byRoot {
            let rows = try coordinator.loadRows(root: root, pks: group.pks, bypassingCache: bypassingCache,
                                                maxAge: stalenessInterval < 0 ? nil : stalenessInterval, in: scope)
            for (object, row) in zip(group.objects, rows) {
                if let row, let values = row.values { object.takeRow(values, version: row.version) }
            }
        }
    }
}

/// Changes of a context not yet announced by `ObjectsDidChange` (see `processPendingChanges()`).
struct UnannouncedChanges {
    /// Objects inserted since, in order; only those whose `insertIsUnannounced` is still set count (an
    /// insert deleted again, or rolled back, clears it; an object inserted again may appear twice).
    var inserted: [NSManagedObject] = []
    var deleted: [ObjectIdentifier: NSManagedObject] = [:]
    /// Updated objects with the storage slots set since the last announcement.
    var updated: [ObjectIdentifier: (object: NSManagedObject, slots: Set<Int>)] = [:]
    var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && updated.isEmpty }
}

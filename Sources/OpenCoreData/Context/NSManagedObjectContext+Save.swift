import Foundation

/// Mirrors `NSInsertedObjectIDsKey` (in `didSaveObjectIDsNotification`).
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// Mirrors `NSUpdatedObjectIDsKey`.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// Mirrors `NSDeletedObjectIDsKey`.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"

/// What a save changed, by object ID, with the values now in the store: handed to the contexts that merge
/// the saving one's saves (``SaveListeners``), so that they merge without touching its objects.
struct SavedChanges: Sendable {
    struct Row: Sendable {
        let id: NSManagedObjectID
        let values: [Value]
        let version: Int64
        let changedSlots: Set<Int>
    }
    var inserted: [Row] = []
    var updated: [Row] = []
    var deleted: [NSManagedObjectID] = []
    /// The context that saved (an `ObjectIdentifier`, so the value stays `Sendable`).
    var source: ObjectIdentifier
    var coordinator: ObjectIdentifier
    /// False for a child context's save, which reaches its parent only.
    var reachedStore = true
    /// Where the save notifications carry it, for `mergeChanges(fromContextDidSave:)` (docs/Store.md,
    /// "Notifications and their sets"); automatic merging is handed it directly (``SaveListeners``).
    static let userInfoKey = "OpenCoreDataSavedChanges"

    /// An empty record of a save by `context`: into its parent (`reachedStore` false) or into the store.
    init(savedBy context: NSManagedObjectContext, reachedStore: Bool) {
        source = ObjectIdentifier(context)
        coordinator = ObjectIdentifier(context.persistentStoreCoordinator ?? NSPersistentStoreCoordinator.self as AnyObject)
        self.reachedStore = reachedStore
    }

    init(source: ObjectIdentifier, coordinator: ObjectIdentifier) {
        self.source = source
        self.coordinator = coordinator
    }
}

extension NSManagedObjectContext {
    /// Mirrors `save()`: validates, then writes every insert, update and delete in one SQLite
    /// transaction. Rows changed in the store since the objects read them are resolved by `mergePolicy`
    /// (the default, `NSErrorMergePolicy`, throws `NSManagedObjectMergeError` with the
    /// `NSMergeConflict`s under `NSPersistentStoreSaveConflictsErrorKey`). If validation, a conflict or
    /// the store fails, it throws and neither the store nor the context changes. Posts `WillSave`, then
    /// `DidSave` (objects) and `didSaveObjectIDsNotification` (IDs) — as Core Data does, also when there
    /// is nothing to save (with empty sets; check `hasChanges` first to skip that work).
    public func save() throws {
        checkQueue("save()")
        // A save is one event for the undo manager: the changes it records join one group.
        undoRecording?.holdsEvent += 1
        defer { if undoRecording != nil { endSaveEvent() } }
        // Even when nothing is left to write (an insert deleted again).
        let announced = announcePendingChanges()
        guard hasChanges || (parent == nil && hasObjectsMarkedForSave) else { return postEmptySave() }
        if let parent { return try saveToParent(parent) }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSPersistentStoreSaveError, "The context has no persistent store coordinator.")
        }
        let policy = (mergePolicy as? NSMergePolicy) ?? NSErrorMergePolicy
        let draft = try prepareSave(policy: policy)
        let stores = coordinator.persistentStores
        let sole = coordinator.soleStoreIdentifier
        let storeIdentifier = { (root: Int) in sole ?? (try? coordinator.storeIdentifier(root: root)) ?? "" }
        // Where each insert goes, when that is not the one store of every entity.
        let insertRoots = sole == nil ? draft.inserted.map { insertKeyRoot($0, coordinator) } : nil
        let namesObjects = stores.contains { $0.backend.needsSavedObjects }
        if namesObjects { try obtainPermanentIDs(for: draft.inserted) }
        let read = draft.updated.map { $0.snapshot! }
        let (outcome, resolved) = try write(draft, to: coordinator, policy: policy, namingObjects: namesObjects, insertRoots: insertRoots)
        if !assignedStores.isEmpty { for object in draft.inserted { assignedStores[ObjectIdentifier(object)] = nil } }
        advanceQueryGeneration()
        // The store has committed: now the context follows.
        var saved = SavedChanges(savedBy: self, reachedStore: true)
        adoptInserted(draft, outcome, insertRoots: insertRoots, storeIdentifier: storeIdentifier)
        adoptUpdated(draft.updated, read: read, outcome, into: &saved)
        if !outcome.derivedRows.isEmpty {
            adoptDerivedRows(outcome.derivedRows, storeIdentifier: storeIdentifier, saved: &saved, skipping: draft.all.joined())
        }
        finishSave(saved, draft, insertsListed: false, insertedSet: announced?.mark == draft.mark ? announced?.objects : nil)
        for object in resolved { object.snapshotEventsDidApply(.mergePolicy) }
    }

    /// Hands the draft to the store: one transaction, in which the conflicts the store finds are resolved
    /// by `policy`. If it fails, the objects are put back as they were before the save (resolutions of
    /// conflicts and of uniqueness constraints undone).
    /// Returns the store's outcome and the objects whose conflicts the policy resolved.
    /// With `namingObjects`, the changes carry the saved objects (a custom store asks for them).
    private func write(_ draft: SaveDraft, to coordinator: NSPersistentStoreCoordinator, policy: NSMergePolicy,
                       namingObjects: Bool, insertRoots: [Int]?) throws -> (StoreSaveOutcome, [NSManagedObject]) {
        var (changes, byKey) = storeChanges(draft)
        changes.origin = historyOrigin
        if namingObjects {
            changes.insertedObjects = draft.inserted
            changes.updatedObjects = draft.updated
            changes.deletedObjects = draft.deleted
        }
        // Resolving conflicts changes the objects: what they were is kept, to restore if the save fails.
        var beforeResolution: [(NSManagedObject, [Value], [Value]?, Int64)] = []
        do {
            let outcome = try coordinator.save(changes, insertRoots: insertRoots) { conflicts in
                let list = conflicts.map { c -> NSMergeConflict in
                    let object = byKey[c.key]!
                    beforeResolution.append((object, object.values, object.snapshot, object.version))
                    return NSMergeConflict(source: object, read: object.snapshot ?? object.values, store: c.current?.values,
                                           newVersion: Int(c.current?.version ?? 0), oldVersion: Int(c.objectVersion), isDelete: c.isDelete)
                }
                try policy.resolve(optimisticLockingConflicts: list)
                return Self.decisions(conflicts, objects: byKey, type: policy.mergeType)
            }
            return (outcome, beforeResolution.map(\.0))
        } catch {
            for (object, values, snapshot, version) in beforeResolution {
                object.values = values
                object.snapshot = snapshot
                object.version = version
            }
            if let point = draft.restorePoint { restore(point) }
            throw Self.constraintMergeError(error) ?? error
        }
    }

    /// What the store writes for a draft, and its updated and deleted objects by key (conflicts name them).
    private func storeChanges(_ draft: SaveDraft) -> (StoreChanges, [ObjectKey: NSManagedObject]) {
        var changes = StoreChanges()
        var byKey: [ObjectKey: NSManagedObject] = [:]
        changes.inserts.reserveCapacity(draft.inserted.count)
        for object in draft.inserted {
            let (key, values) = object.keyAndValues
            changes.inserts.append(.init(key: key, layout: object.layout, values: values))
        }
        for object in draft.updated {
            changes.updates.append(.init(key: object.objectID.key, layout: object.layout, values: object.values,
                                         snapshot: object.snapshot!, version: object.version))
            byKey[object.objectID.key] = object
        }
        for object in draft.deleted {
            changes.deletes.append(.init(key: object.objectID.key, layout: object.layout, version: object.version))
            byKey[object.objectID.key] = object
        }
        return (changes, byKey)
    }

    /// A row the context's constraint check could not see (written by another coordinator since) met the
    /// unique index: Core Data's constraint merge error, the store's error beneath it.
    private static func constraintMergeError(_ error: Error) -> CoreDataError? {
        guard let error = error as? CoreDataError, error.storeFailure == .uniqueViolation else { return nil }
        return CoreDataError(NSManagedObjectConstraintMergeError,
                             "Could not merge changes: a uniqueness constraint conflict with a row saved meanwhile (\(error.message)).",
                             userInfo: [NSPersistentStoreSaveConflictsErrorKey: [NSConstraintConflict](), NSUnderlyingErrorKey: error])
    }

    /// The inserted objects once their rows are in: references to them renamed to their store keys,
    /// persisted, with their store IDs, derived values and snapshots, registered under their store keys.
    private func adoptInserted(_ draft: SaveDraft, _ outcome: StoreSaveOutcome, insertRoots: [Int]?, storeIdentifier: (Int) -> String) {
        if !outcome.renaming.isEmpty {
            for object in [draft.inserted, draft.updated].joined() where !object.layout.relationshipSlots.isEmpty && !object.isFault {
                object.values = outcome.renaming.apply(object.values, object.layout)
            }
        }
        let wholeList = emptyInsertedList(ifWhole: draft.inserted, listedAt: draft.mark)
        var formerKeys: [ObjectKey] = []
        for (i, (object, pk)) in zip(draft.inserted, outcome.insertedPrimaryKeys).enumerated() {
            if !wholeList { setLifecycle(.persisted, of: object) }
            let key = object.assignedKey
            var storeID: NSManagedObjectID?
            if key?.isTemporary ?? true {
                let root = insertRoots?[i] ?? object.layout.rootEntityID
                let id = NSManagedObjectID(entity: object.entity, key: .permanent(root: root, pk: pk), storeIdentifier: storeIdentifier(root))
                storeID = id
                if let key {
                    formerKeys.append(key)
                    childStoreKeys.noteSaved(key, as: id)
                }
            }
            if !outcome.derivedRows.isEmpty, let row = outcome.derivedRows[storeID?.key ?? object.objectID.key] {
                object.values = NSPersistentStoreCoordinator.withDerived(object.values, row, object.layout)
            }
            object.adoptSavedRow(id: storeID, persisted: wholeList)
        }
        registry.registerSaved(draft.inserted, formerKeys: formerKeys)
    }

    /// The rows of saved inserted objects, as ``SavedChanges`` lists them (the objects hold their store IDs
    /// and the values now in the store).
    private static func savedRows(ofInserted objects: [NSManagedObject]) -> [SavedChanges.Row] {
        var rows: [SavedChanges.Row] = []
        rows.reserveCapacity(objects.count)
        for object in objects {
            rows.append(.init(id: object.objectID, values: object.values, version: object.version, changedSlots: object.layout.persistentSlotSet))
        }
        return rows
    }

    /// The updated objects once written: each takes its row as the store now has it (after any merge),
    /// listed in `saved` with the slots that changed since it read `read`; an object whose row the merge
    /// policy left deleted (it was deleted elsewhere) is listed as deleted.
    private func adoptUpdated(_ objects: [NSManagedObject], read: [[Value]], _ outcome: StoreSaveOutcome, into saved: inout SavedChanges) {
        for (object, read) in zip(objects, read) {
            guard case .some(.some(let row)) = outcome.rows[object.objectID.key], let values = row.values else {
                object.takeRow(object.layout.properties.map { _ in .null }, version: 0)
                saved.deleted.append(object.objectID)
                continue
            }
            object.values = values
            object.snapshot = values
            object.version = row.version
            saved.updated.append(.init(id: object.objectID, values: values, version: row.version,
                                       changedSlots: object.layout.changedSlotSet(from: read, to: values)))
        }
    }

    /// Rows whose derived attributes the store recomputed although this save did not write them (a
    /// member joined a counted to-many, a to-one's source attribute changed): registered objects take the
    /// new derived values (keeping unsaved changes), and other contexts hear of them as updates.
    private func adoptDerivedRows(_ rows: [ObjectKey: StoreRow], storeIdentifier: (Int) -> String, saved: inout SavedChanges, skipping: some Sequence<NSManagedObject>) {
        guard !rows.isEmpty, let model = persistentStoreCoordinator?.managedObjectModel else { return }
        let written = Set(skipping.map { $0.objectID.key })
        for (key, row) in rows where !written.contains(key) {
            guard let values = row.values, let entity = model.entity(number: row.entityID) else { continue }
            let slots = entity.layout.derivedSlots
            var changed = Set<Int>()
            if let object = registry[key] {
                switch object.faultState {
                case .loaded:
                    if var snapshot = object.snapshot {
                        for slot in slots where snapshot[slot] != values[slot] {
                            if object.values[slot] == snapshot[slot] { object.values[slot] = values[slot] }
                            snapshot[slot] = values[slot]
                            changed.insert(slot)
                        }
                        object.snapshot = snapshot
                    }
                case .holdingRow(let held, let version):
                    changed = Set(slots.filter { held[$0] != values[$0] })
                    object.faultState = .holdingRow(NSPersistentStoreCoordinator.withDerived(held, row, entity.layout), version: version)
                default:
                    changed = Set(slots)
                }
            } else {
                changed = Set(slots)
            }
            guard !changed.isEmpty else { continue }
            let id = NSManagedObjectID(entity: entity, key: key, storeIdentifier: registry[key]?.objectID.storeIdentifier ?? storeIdentifier(entity.layout.rootEntityID))
            saved.updated.append(.init(id: id, values: values, version: row.version, changedSlots: changed))
        }
    }

    /// What the store writes for each conflict, once the merge policy has resolved them (changing the
    /// objects): an updated object is written where it differs from the store's row (if the policy left
    /// it at its old row version, it now answers to the store's); a row deleted elsewhere is written again
    /// or left deleted, and a row deleted here but changed in the store deleted or kept, by `type`.
    static func decisions(_ conflicts: [StoreConflict], objects: [ObjectKey: NSManagedObject], type: NSMergePolicyType) -> [ObjectKey: ConflictResolution] {
        var decisions: [ObjectKey: ConflictResolution] = [:]
        for conflict in conflicts {
            let object = objects[conflict.key]!
            switch (conflict.isDelete, conflict.current) {
            case (true, let row?):
                decisions[conflict.key] = MergeArithmetic.deletesChangedRow(type) ? .delete(version: row.version) : .keepStore
            case (true, nil):
                decisions[conflict.key] = .keepStore
            case (false, nil):
                decisions[conflict.key] = MergeArithmetic.rewritesDeletedRow(type) ? .reinsert(values: object.values) : .keepStore
            case (false, let row?):
                if object.version != row.version, let values = row.values {
                    object.snapshot = values
                    object.version = row.version
                }
                decisions[conflict.key] = .write(values: object.values, snapshot: object.snapshot ?? object.values, version: object.version)
            }
        }
        return decisions
    }

    /// The end of every save: deleted objects leave the context, pending changes are cleared, `DidSave`
    /// is posted and the objects hear `didSave()`. `insertsListed` says whether `saved` lists the draft's
    /// inserted objects already (a child context's save); a store save's are listed here, and its payloads
    /// built as the coordinator says (``NSPersistentStoreCoordinator/postsChangeSets``). `insertedSet`,
    /// when given, is the draft's inserted objects as a set already made.
    func finishSave(_ saved: SavedChanges, _ draft: SaveDraft, insertsListed: Bool = true, insertedSet: Set<NSManagedObject>? = nil) {
        var saved = saved
        for object in draft.deleted {
            registry[object.objectID.key] = nil
            object.managedObjectContext = nil
            setLifecycle(.removed, of: object)
            saved.deleted.append(object.objectID)
        }
        for object in draft.updated { object.clearSaveMarks() }
        touched.removeAll()
        let payloads = insertsListed ? SavePayloads.all : savePayloads
        if !insertsListed, payloads.rows { saved.inserted = Self.savedRows(ofInserted: draft.inserted) }
        let inserted = payloads.objects || !changeObservers.isEmpty ? insertedSet ?? Set(draft.inserted) : []
        changeObservers.tell(.saved(inserted: inserted))
        postDidSave(saved, payloads, inserted: inserted, updated: draft.updated, deleted: draft.deleted)
        for list in draft.all {
            for object in list { object.didSave() }
        }
    }

    /// A save with nothing to save: `WillSave` and `DidSave` with empty sets, as Core Data posts them.
    private func postEmptySave() {
        NotificationCenter.default.post(name: .contextWillSave, object: self)
        changeObservers.tell(.saved(inserted: []))
        postDidSave(SavedChanges(savedBy: self, reachedStore: parent == nil), .all, inserted: [], updated: [], deleted: [])
    }

    /// Posts `DidSave` and `didSaveObjectIDsNotification` with the payloads asked for: each set, and the
    /// saved rows, only when `payloads` has them (the notifications are posted either way).
    private func postDidSave(_ saved: SavedChanges, _ payloads: SavePayloads, inserted: Set<NSManagedObject>,
                             updated: [NSManagedObject], deleted: [NSManagedObject]) {
        let center = NotificationCenter.default
        var info: [AnyHashable: Any] = [:]
        if payloads.objects {
            info[NSInsertedObjectsKey] = inserted
            info[NSUpdatedObjectsKey] = Set(updated)
            info[NSDeletedObjectsKey] = Set(deleted)
        }
        if payloads.rows { info[SavedChanges.userInfoKey] = saved }
        center.post(name: .contextDidSave, object: self, userInfo: info)
        deliverToMergingContexts(saved)
        var idInfo: [AnyHashable: Any] = [:]
        if payloads.objectIDs {
            idInfo[NSInsertedObjectIDsKey] = Set(saved.inserted.lazy.map(\.id))
            idInfo[NSUpdatedObjectIDsKey] = Set(saved.updated.lazy.map(\.id))
            idInfo[NSDeletedObjectIDsKey] = Set(saved.deleted)
        }
        if payloads.rows { idInfo[SavedChanges.userInfoKey] = saved }
        center.post(name: .contextDidSaveObjectIDs, object: self, userInfo: idInfo)
    }
}

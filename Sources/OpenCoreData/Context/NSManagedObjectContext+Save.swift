import Foundation

/// Mirrors `NSInsertedObjectIDsKey` (in `didSaveObjectIDsNotification`).
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// Mirrors `NSUpdatedObjectIDsKey`.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// Mirrors `NSDeletedObjectIDsKey`.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"

/// What a save changed, by object ID, with the values now in the store: carried in the `DidSave`
/// notifications so that other contexts merge without touching the saving context's objects.
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
    static let userInfoKey = "OpenCoreDataSavedChanges"
}

extension NSManagedObjectContext {
    /// Mirrors `save()`: validates, then writes every insert, update and delete in one SQLite
    /// transaction. Rows changed in the store since the objects read them are resolved by `mergePolicy`
    /// (the default, `NSErrorMergePolicy`, throws `NSManagedObjectMergeError` with the
    /// `NSMergeConflict`s under `NSPersistentStoreSaveConflictsErrorKey`). If validation, a conflict or
    /// the store fails, it throws and neither the store nor the context changes. Posts `WillSave`, then
    /// `DidSave` (objects) and `didSaveObjectIDsNotification` (IDs).
    public func save() throws {
        checkQueue("save()")
        // Even when nothing is left to write (an insert deleted again).
        let announced = announcePendingChanges()
        guard hasChanges else { return }
        if let parent { return try saveToParent(parent) }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSPersistentStoreSaveError, "The context has no persistent store coordinator.")
        }
        processPendingChanges()
        NotificationCenter.default.post(name: NSManagedObjectContext.willSaveObjectsNotification, object: self)
        var (insertedObjects, updatedObjects, deletedObjects) = pendingObjects()
        // With no insert since and as many inserted objects, `insertedObjects` is still the inserted list.
        var insertionMark = insertionCounter
        if try callWillSave([insertedObjects, updatedObjects, deletedObjects]) {
            (insertedObjects, updatedObjects, deletedObjects) = pendingObjects()
            insertionMark = insertionCounter
        }
        // An object whose row was deleted elsewhere before its fault fired has no values to validate: the
        // store reports the conflict (naming it), unless the policy writes the object's values back.
        let policy = (mergePolicy as? NSMergePolicy) ?? NSErrorMergePolicy
        let rewrites = MergeArithmetic.rewritesDeletedRow(policy.mergeType)
        try validate([insertedObjects, updatedObjects.filter { rewrites || !$0.faultState.isRowGone }], deleted: deletedObjects)
        // Uniqueness constraints: conflicts go to the policy before anything is written; a resolution
        // changes the objects, which a failed save puts back.
        var restorePoint: ConstraintRestorePoint?
        let constraintConflicts = try constraintConflicts([insertedObjects, updatedObjects].joined(), deleted: deletedObjects)
        if !constraintConflicts.isEmpty {
            let point = constraintRestorePoint()
            do {
                try policy.resolve(constraintConflicts: constraintConflicts)
            } catch {
                restore(point)
                throw error
            }
            restorePoint = point
            processPendingChanges()
            (insertedObjects, updatedObjects, deletedObjects) = pendingObjects()
            insertionMark = insertionCounter
        }

        var changes = StoreChanges()
        var byKey: [ObjectKey: NSManagedObject] = [:]
        for object in insertedObjects {
            changes.inserts.append(.init(key: object.assignedKey, layout: object.layout, values: object.values))
        }
        for object in updatedObjects {
            changes.updates.append(.init(key: object.objectID.key, layout: object.layout, values: object.values,
                                         snapshot: object.snapshot!, version: object.version))
            byKey[object.objectID.key] = object
        }
        for object in deletedObjects {
            changes.deletes.append(.init(key: object.objectID.key, layout: object.layout, version: object.version))
            byKey[object.objectID.key] = object
        }
        let identifier = try coordinator.backend().identifier
        let readSnapshots = Dictionary(uniqueKeysWithValues: updatedObjects.map { ($0.objectID.key, $0.snapshot!) })
        // Resolving conflicts changes the objects: what they were is kept, to restore if the save fails.
        var beforeResolution: [(NSManagedObject, [Value], [Value]?, Int64)] = []
        let outcome: StoreSaveOutcome
        do {
            outcome = try coordinator.save(changes) { conflicts in
                let list = conflicts.map { c -> NSMergeConflict in
                    let object = byKey[c.key]!
                    beforeResolution.append((object, object.values, object.snapshot, object.version))
                    return NSMergeConflict(source: object, read: object.snapshot ?? object.values, store: c.current?.values,
                                           newVersion: Int(c.current?.version ?? 0), oldVersion: Int(c.objectVersion), isDelete: c.isDelete)
                }
                try policy.resolve(optimisticLockingConflicts: list)
                return Self.decisions(conflicts, objects: byKey, type: policy.mergeType)
            }
        } catch {
            for (object, values, snapshot, version) in beforeResolution {
                object.values = values
                object.snapshot = snapshot
                object.version = version
            }
            if let restorePoint { restore(restorePoint) }
            // A row the check could not see (written by another coordinator since) met the unique index.
            if let error = error as? CoreDataError, error.sqliteError?.isUniqueConstraintViolation == true {
                throw CoreDataError(NSManagedObjectConstraintMergeError,
                                    "Could not merge changes: a uniqueness constraint conflict with a row saved meanwhile (\(error.message)).",
                                    userInfo: [NSPersistentStoreSaveConflictsErrorKey: [NSConstraintConflict](), NSUnderlyingErrorKey: error])
            }
            throw error
        }

        // The store has committed: now the context follows.
        var saved = SavedChanges(source: ObjectIdentifier(self), coordinator: ObjectIdentifier(coordinator))
        saved.inserted.reserveCapacity(insertedObjects.count)
        // References to inserted objects name their new keys from now on (only objects with
        // relationships hold references).
        // `changes.inserts` and `outcome.insertedPrimaryKeys` are in the order of `insertedObjects`.
        let insertedPKs = outcome.insertedPrimaryKeys
        if changes.holdsReferences {
            let renamed = KeyRenaming(zip(insertedObjects, insertedPKs).compactMap { object, pk in
                object.assignedKey.map { ($0, ObjectKey.permanent(root: object.layout.rootEntityID, pk: pk)) }
            })
            for object in [insertedObjects, updatedObjects].joined() where !object.layout.relationshipSlots.isEmpty && !object.isFault {
                object.values = renamed.apply(object.values, object.layout)
            }
        }
        // One pass over the inserted objects (an import touches each once): saved, under their store keys,
        // with their snapshots and the IDs `DidSave` announces. When they are still the whole inserted
        // list, it is emptied at once rather than one removal each.
        let wholeList = insertionMark == insertionCounter && insertedObjects.count == inserted.count
        var insertedIDs = Set<NSManagedObjectID>(minimumCapacity: insertedObjects.count)
        var temporaryKeys: [ObjectKey] = []
        for (object, pk) in zip(insertedObjects, insertedPKs) {
            if wholeList { object.lifecycle = .persisted } else { setLifecycle(.persisted, of: object) }
            let key = object.assignedKey
            if key?.isTemporary ?? true {
                if let key { temporaryKeys.append(key) }
                object.objectID = NSManagedObjectID(entity: object.entity, key: .permanent(root: object.layout.rootEntityID, pk: pk),
                                                    storeIdentifier: identifier)
            }
            let id = object.objectID
            if !outcome.derivedRows.isEmpty, let row = outcome.derivedRows[id.key] {
                object.values = NSPersistentStoreCoordinator.withDerived(object.values, row, object.layout)
            }
            let values = object.values
            object.snapshot = values
            object.version = 1
            saved.inserted.append(.init(id: id, values: values, version: 1, changedSlots: object.layout.persistentSlotSet))
            insertedIDs.insert(id)
        }
        if wholeList { insertedListSaved() }
        // When the saved objects held every temporary key registered (an import), that table is emptied
        // at once. The objects are registered under their store keys as one group, hashed when first
        // looked up (those `obtainPermanentIDs` keyed are registered already: entering them again is
        // harmless).
        if !temporaryKeys.isEmpty, temporaryKeys.count == registry.temporaryCount {
            registry.removeAllTemporary()
        } else {
            for key in temporaryKeys { registry[key] = nil }
        }
        registry.registerSaved(insertedObjects)
        for object in updatedObjects {
            let key = object.objectID.key
            guard case .some(.some(let row)) = outcome.rows[key], let values = row.values else {
                // The merge policy followed the store, where the row is gone: it was deleted elsewhere.
                object.takeRow(object.layout.properties.map { _ in .null }, version: 0)
                saved.deleted.append(object.objectID)
                continue
            }
            let read = readSnapshots[key]!
            let changed = Set(object.layout.persistentSlots.filter { read[$0] != values[$0] })
            object.values = values
            object.snapshot = values
            object.version = row.version
            saved.updated.append(.init(id: object.objectID, values: values, version: row.version, changedSlots: changed))
        }
        if !outcome.derivedRows.isEmpty {
            adoptDerivedRows(outcome.derivedRows, saved: &saved, skipping: insertedObjects + updatedObjects + deletedObjects)
        }
        // The set `ObjectsDidChange` announced is the set of inserted objects saved when no insert happened
        // since and none of them left (it was every inserted object then).
        let insertedSet = announced.flatMap { $0.insertionCounter == insertionCounter && $0.objects.count == insertedObjects.count ? $0.objects : nil }
        finishSave(saved, inserted: insertedObjects, insertedSet: insertedSet, insertedIDs: insertedIDs, updated: updatedObjects,
                   deleted: deletedObjects)
    }

    /// Rows whose derived attributes the store recomputed although this save did not write them (a
    /// member joined a counted to-many, a to-one's source attribute changed): registered objects take the
    /// new derived values (keeping unsaved changes), and other contexts hear of them as updates.
    private func adoptDerivedRows(_ rows: [ObjectKey: StoreRow], saved: inout SavedChanges, skipping: [NSManagedObject]) {
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
            let id = NSManagedObjectID(entity: entity, key: key, storeIdentifier: registry[key]?.objectID.storeIdentifier
                                       ?? ((try? persistentStoreCoordinator?.backend().identifier) ?? ""))
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
    /// is posted and the objects hear `didSave()`.
    func finishSave(_ saved: SavedChanges, inserted insertedObjects: [NSManagedObject], insertedSet: Set<NSManagedObject>? = nil,
                    insertedIDs: Set<NSManagedObjectID>? = nil,
                    updated updatedObjects: [NSManagedObject], deleted deletedObjects: [NSManagedObject]) {
        var saved = saved
        for object in deletedObjects {
            registry[object.objectID.key] = nil
            object.managedObjectContext = nil
            setLifecycle(.removed, of: object)
            saved.deleted.append(object.objectID)
        }
        touched.removeAll()
        postDidSave(saved, inserted: insertedSet ?? Set(insertedObjects), insertedIDs: insertedIDs ?? Set(saved.inserted.map(\.id)),
                    updated: updatedObjects, deleted: deletedObjects)
        for object in [insertedObjects, updatedObjects, deletedObjects].joined() { object.didSave() }
    }

    /// Calls `willSave()` on the objects about to be saved. As in Core Data, changes made by those calls
    /// are part of the save, and the objects they changed get `willSave()` again, until a round changes
    /// nothing; after ``willSaveRounds`` rounds the save throws. Returns whether they changed anything
    /// (the pending objects must then be listed again).
    func callWillSave(_ lists: [[NSManagedObject]]) throws -> Bool {
        // Lists are chained, not concatenated: `+` copies (and retains) every object of an import again.
        for object in lists.joined() { object.willSave() }
        var rounds = 0
        while !unprocessed.isEmpty {
            rounds += 1
            guard rounds <= Self.willSaveRounds else {
                throw CoreDataError(NSCoreDataError, "willSave() changed objects in \(Self.willSaveRounds) rounds in a row; "
                                    + "a willSave() that sets a value should first check that the value differs (Apple: otherwise willSave is called until the program crashes)")
            }
            let changed = unprocessed.inserted.filter(\.insertIsUnannounced) + unprocessed.updated.values.map(\.object) + unprocessed.deleted.values
            processPendingChanges()
            var seen = Set<ObjectIdentifier>()
            for object in changed where seen.insert(ObjectIdentifier(object)).inserted
                && object.managedObjectContext === self && (object.isInserted || object.isUpdated || object.isDeleted) {
                object.willSave()
            }
        }
        return rounds > 0
    }

    /// How many rounds of `willSave()` calls a save runs at most while they keep changing objects (Core
    /// Data runs them until the program crashes); then the save throws.
    static let willSaveRounds = 100

    func pendingObjects() -> ([NSManagedObject], [NSManagedObject], [NSManagedObject]) {
        let insertedObjects = inserted.objects
        let updatedObjects = touched.values.filter { $0.isUpdated && !$0.isDeleted }
            .sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        let deletedObjects = deleted.values.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        return (insertedObjects, updatedObjects, deletedObjects)
    }

    func postDidSave(_ saved: SavedChanges, inserted: Set<NSManagedObject>, insertedIDs: Set<NSManagedObjectID>,
                     updated: [NSManagedObject], deleted: [NSManagedObject]) {
        let center = NotificationCenter.default
        center.post(name: NSManagedObjectContext.didSaveObjectsNotification, object: self, userInfo: [
            NSInsertedObjectsKey: inserted,
            NSUpdatedObjectsKey: Set(updated),
            NSDeletedObjectsKey: Set(deleted),
            SavedChanges.userInfoKey: saved,
        ])
        center.post(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: self, userInfo: [
            NSInsertedObjectIDsKey: insertedIDs,
            NSUpdatedObjectIDsKey: Set(saved.updated.map(\.id)),
            NSDeletedObjectIDsKey: Set(saved.deleted),
            SavedChanges.userInfoKey: saved,
        ])
    }

    /// Required values present, values of the attribute's type meeting its validation predicates (see
    /// AttributeValidation.swift). One error throws as itself; several as
    /// `NSValidationMultipleErrorsError` with `NSDetailedErrorsKey`.
    func validate(_ lists: [[NSManagedObject]], deleted: [NSManagedObject] = []) throws {
        var errors: [CoreDataError] = deniedDeletes(deleted)
        for object in lists.joined() {
            let layout = object.layout, entityName = object.entity.name ?? "?"
            if !layout.relationshipSlots.isEmpty { errors += relationshipErrors(object) }
            let values = object.values
            for (slot, attribute) in layout.validatedAttributes {
                let value = values[slot]
                if value.isNull {
                    if !attribute.isOptional {
                        errors.append(CoreDataError(NSValidationMissingMandatoryPropertyError,
                                                    "\(entityName).\(attribute.name) is a required value.",
                                                    userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: attribute.name]))
                    }
                } else if !attribute.attributeType.holdsOwnRepresentation(value), attribute.attributeType.coerce(value) != value {
                    let problem = value.isNaN
                        ? "is NaN (not a number), which a SQLite store cannot keep (SQLite stores NaN as NULL)"
                        : "must be a \(attribute.attributeType.name), not \(PredicatePrinter.format(ExpressionNode.constant(value)))"
                    errors.append(CoreDataError(NSManagedObjectValidationError,
                                                "\(entityName).\(attribute.name) \(problem).",
                                                userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: attribute.name,
                                                           NSValidationValueErrorKey: value.anyValue ?? NSNull()]))
                } else if !attribute.validationPredicates.isEmpty {
                    errors += attribute.validationErrors(for: value, object: object, entityName: entityName)
                }
            }
        }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            throw CoreDataError(NSValidationMultipleErrorsError,
                                "Multiple validation errors occurred: " + errors.map(\.message).joined(separator: " "),
                                userInfo: [NSDetailedErrorsKey: errors as [NSError]])
        }
    }
}

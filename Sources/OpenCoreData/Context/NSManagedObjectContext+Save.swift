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
        processPendingChanges()  // even when nothing is left to write (an insert deleted again)
        guard hasChanges else { return }
        if let parent { return try saveToParent(parent) }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSPersistentStoreSaveError, "The context has no persistent store coordinator.")
        }
        processPendingChanges()
        NotificationCenter.default.post(name: NSManagedObjectContext.willSaveObjectsNotification, object: self)
        let (insertedObjects, updatedObjects, deletedObjects) = pendingObjects()
        for object in insertedObjects + updatedObjects + deletedObjects { object.willSave() }
        // An object whose row was deleted elsewhere before its fault fired has no values to validate: the
        // store reports the conflict (naming it), unless the policy writes the object's values back.
        let rewrites = mergeType == .mergeByPropertyObjectTrumpMergePolicyType || mergeType == .overwriteMergePolicyType
        try validate(insertedObjects + updatedObjects.filter { rewrites || !$0.rowMissing })

        var changes = StoreChangeset()
        for object in insertedObjects {
            changes.inserts.append(.init(layout: object.layout, pk: object.objectID.primaryKey, values: object.values))
        }
        for object in updatedObjects {
            changes.updates.append(.init(layout: object.layout, pk: object.objectID.primaryKey!, values: object.values,
                                         snapshot: object.snapshot!, version: object.version))
        }
        for object in deletedObjects {
            changes.deletes.append(.init(layout: object.layout, pk: object.objectID.primaryKey!, version: object.version))
        }
        let store = try coordinator.store()
        let result: StoreSaveResult
        do {
            result = try store.backend.save(changes, policy: mergeType)
        } catch let error as StoreConflictError {
            throw mergeError(error, updated: updatedObjects, deleted: deletedObjects)
        }

        // The store has committed: now the context follows.
        var saved = SavedChanges(source: ObjectIdentifier(self), coordinator: ObjectIdentifier(coordinator))
        for (object, pk) in zip(insertedObjects, result.insertedKeys) {
            if object.objectID.isTemporaryID {
                registry[object.objectID.key] = nil
                object.objectID = NSManagedObjectID(entity: object.entity, key: .permanent(root: object.layout.root.layout.entityID, pk: pk),
                                                    storeIdentifier: store.identifier)
                registry[object.objectID.key] = object
            }
            object._isInserted = false
            object.snapshot = object.values
            object.version = 1
            saved.inserted.append(.init(id: object.objectID, values: object.values, version: 1, changedSlots: object.layout.persistentSlotSet))
        }
        for (object, outcome) in zip(updatedObjects, result.updated) {
            let changed = Set(object.layout.persistentSlots.filter { object.snapshot![$0] != (outcome?.values ?? object.values)[$0] })
            if let outcome {
                object.values = outcome.values
                object.snapshot = outcome.values
                object.version = outcome.version
                saved.updated.append(.init(id: object.objectID, values: outcome.values, version: outcome.version, changedSlots: changed))
            } else {
                // The merge policy dropped the object's changes and the row is gone: it was deleted elsewhere.
                object.fill(with: object.layout.attributes.map { _ in .null }, version: 0)
                saved.deleted.append(object.objectID)
            }
        }
        finishSave(saved, inserted: insertedObjects, updated: updatedObjects, deleted: deletedObjects)
    }

    /// The end of every save: deleted objects leave the context, pending changes are cleared, `DidSave`
    /// is posted and the objects hear `didSave()`.
    func finishSave(_ saved: SavedChanges, inserted insertedObjects: [NSManagedObject], updated updatedObjects: [NSManagedObject],
                    deleted deletedObjects: [NSManagedObject]) {
        var saved = saved
        for object in deletedObjects {
            registry[object.objectID.key] = nil
            object.managedObjectContext = nil
            saved.deleted.append(object.objectID)
        }
        inserted.removeAll()
        deleted.removeAll()
        touched.removeAll()
        postDidSave(saved, inserted: insertedObjects, updated: updatedObjects, deleted: deletedObjects)
        for object in insertedObjects + updatedObjects + deletedObjects { object.didSave() }
    }

    /// The inserted objects in the order they were inserted. Insertion indexes are distinct and mostly
    /// dense, so they are placed by index rather than sorted.
    func insertedInOrder() -> [NSManagedObject] {
        guard inserted.count > 1 else { return Array(inserted.values) }
        var low = Int.max, high = Int.min
        for object in inserted.values {
            low = min(low, object.insertionIndex)
            high = max(high, object.insertionIndex)
        }
        guard high - low < 4 * inserted.count else { return inserted.values.sorted { $0.insertionIndex < $1.insertionIndex } }
        var placed = [NSManagedObject?](repeating: nil, count: high - low + 1)
        for object in inserted.values { placed[object.insertionIndex - low] = object }
        return placed.compactMap { $0 }
    }

    func pendingObjects() -> ([NSManagedObject], [NSManagedObject], [NSManagedObject]) {
        let insertedObjects = insertedInOrder()
        let updatedObjects = touched.values.filter { $0.isUpdated && !$0._isDeleted }
            .sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        let deletedObjects = deleted.values.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        return (insertedObjects, updatedObjects, deletedObjects)
    }

    func postDidSave(_ saved: SavedChanges, inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        let center = NotificationCenter.default
        center.post(name: NSManagedObjectContext.didSaveObjectsNotification, object: self, userInfo: [
            NSInsertedObjectsKey: Set(inserted),
            NSUpdatedObjectsKey: Set(updated),
            NSDeletedObjectsKey: Set(deleted),
            SavedChanges.userInfoKey: saved,
        ])
        center.post(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: self, userInfo: [
            NSInsertedObjectIDsKey: Set(saved.inserted.map(\.id)),
            NSUpdatedObjectIDsKey: Set(saved.updated.map(\.id)),
            NSDeletedObjectIDsKey: Set(saved.deleted),
            SavedChanges.userInfoKey: saved,
        ])
    }

    private func mergeError(_ error: StoreConflictError, updated: [NSManagedObject], deleted: [NSManagedObject]) -> CoreDataError {
        let conflicts = error.conflicts.map { c -> NSMergeConflict in
            let object = c.isDelete ? deleted[c.index] : updated[c.index]
            return NSMergeConflict(source: object, objectSnapshot: object.dictionary(object.values),
                                   cachedSnapshot: object.dictionary(object.snapshot), persistedSnapshot: object.dictionary(c.storeValues),
                                   newVersion: Int(c.storeVersion), oldVersion: Int(c.objectVersion))
        }
        let names = conflicts.map { "\($0.sourceObject.entity.name ?? "?") \($0.sourceObject.objectID.uriRepresentation().lastPathComponent)" }
        return CoreDataError(NSManagedObjectMergeError,
                             "Could not merge changes: \(conflicts.count) object\(conflicts.count == 1 ? "" : "s") changed in the store since they were read (\(names.joined(separator: ", "))).",
                             userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts])
    }

    /// Required values present, values of the attribute's type. One error throws as itself; several as
    /// `NSValidationMultipleErrorsError` with `NSDetailedErrorsKey`.
    func validate(_ objects: [NSManagedObject]) throws {
        var errors: [CoreDataError] = []
        for object in objects {
            let entityName = object.entity.name ?? "?"
            for slot in object.layout.persistentSlots {
                let attribute = object.layout.attributes[slot]
                let value = object.values[slot]
                if value.isNull {
                    if !attribute.isOptional {
                        errors.append(CoreDataError(NSValidationMissingMandatoryPropertyError,
                                                    "\(entityName).\(attribute.name) is a required value.",
                                                    userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: attribute.name]))
                    }
                } else if attribute.attributeType.coerce(value) != value {
                    let problem = value.isNaN
                        ? "is NaN (not a number), which a SQLite store cannot keep (SQLite stores NaN as NULL)"
                        : "must be a \(attribute.attributeType.name), not \(PredicatePrinter.format(ExpressionNode.constant(value)))"
                    errors.append(CoreDataError(NSManagedObjectValidationError,
                                                "\(entityName).\(attribute.name) \(problem).",
                                                userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: attribute.name,
                                                           NSValidationValueErrorKey: value.anyValue ?? NSNull()]))
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

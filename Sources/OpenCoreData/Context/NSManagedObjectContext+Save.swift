import Foundation

extension NSManagedObjectContext {
    /// Mirrors `save()`: validates, then writes every insert, update and delete in one SQLite
    /// transaction. If validation or the store fails, it throws and neither the store nor the context
    /// changes (objects keep their temporary IDs and pending changes). Posts `WillSave` and `DidSave`
    /// (userInfo: `NSInsertedObjectsKey`, `NSUpdatedObjectsKey`, `NSDeletedObjectsKey`).
    public func save() throws {
        guard hasChanges else { return }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSPersistentStoreSaveError, "The context has no persistent store coordinator.")
        }
        processPendingChanges()
        NotificationCenter.default.post(name: NSManagedObjectContext.willSaveObjectsNotification, object: self)
        let insertedObjects = inserted.values.sorted { insertionOrder[ObjectIdentifier($0)]! < insertionOrder[ObjectIdentifier($1)]! }
        let updatedObjects = touched.values.filter { $0.isUpdated && !$0._isDeleted }
            .sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        let deletedObjects = deleted.values.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        for object in insertedObjects + updatedObjects + deletedObjects { object.willSave() }
        try validate(insertedObjects + updatedObjects)

        var changes = StoreChangeset()
        for object in insertedObjects {
            changes.inserts.append(.init(layout: object.layout, pk: object.objectID.primaryKey, values: object.values))
        }
        for object in updatedObjects {
            let snapshot = object.snapshot!
            let slots = object.layout.persistentSlots.filter { snapshot[$0] != object.values[$0] }
            if slots.isEmpty { continue }
            changes.updates.append(.init(layout: object.layout, pk: object.objectID.primaryKey!, slots: slots, values: object.values))
        }
        for object in deletedObjects {
            guard let pk = object.objectID.primaryKey else { continue }
            changes.deletes.append(.init(layout: object.layout, pk: pk))
        }
        let keys = try coordinator.withStore { try $0.save(changes) }
        let storeID = try coordinator.store().identifier!

        // The store has committed: now the context follows.
        for (object, pk) in zip(insertedObjects, keys) {
            if object.objectID.isTemporaryID {
                registry[object.objectID.key] = nil
                object.objectID = NSManagedObjectID(entity: object.entity, key: .permanent(root: object.layout.root.layout.entityID, pk: pk),
                                                    storeIdentifier: storeID)
                registry[object.objectID.key] = object
            }
            object._isInserted = false
            object.snapshot = object.values
        }
        for object in updatedObjects { object.snapshot = object.values }
        for object in deletedObjects {
            registry[object.objectID.key] = nil
            object.managedObjectContext = nil
        }
        inserted.removeAll()
        deleted.removeAll()
        touched.removeAll()
        insertionOrder.removeAll()

        NotificationCenter.default.post(name: NSManagedObjectContext.didSaveObjectsNotification, object: self, userInfo: [
            NSInsertedObjectsKey: Set(insertedObjects),
            NSUpdatedObjectsKey: Set(updatedObjects),
            NSDeletedObjectsKey: Set(deletedObjects),
        ])
        for object in insertedObjects + updatedObjects + deletedObjects { object.didSave() }
    }

    /// Required values present, values of the attribute's type. One error throws as itself; several as
    /// `NSValidationMultipleErrorsError` with `NSDetailedErrorsKey`.
    private func validate(_ objects: [NSManagedObject]) throws {
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
                    errors.append(CoreDataError(NSManagedObjectValidationError,
                                                "\(entityName).\(attribute.name) must be a \(attribute.attributeType.name), not \(PredicatePrinter.format(ExpressionNode.constant(value))).",
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

import Foundation

/// A row handed from a parent context to its child: the parent's current values of an object,
/// unsaved changes included.
struct ParentRow {
    let id: NSManagedObjectID
    let values: [Value]
    let version: Int64
}

extension NSManagedObjectContext {
    /// Mirrors `parent`: a child context fetches through its parent (seeing the parent's unsaved state)
    /// and saves into it, not into the store. Setting it also sets the coordinator (the parent's).
    public var parent: NSManagedObjectContext? {
        get { _parent }
        set {
            _parent = newValue
            if let newValue {
                persistentStoreCoordinator = newValue.persistentStoreCoordinator ?? newValue.parent?.persistentStoreCoordinator
            }
            if mergeListening != nil { listenForSaves() }
        }
    }

    /// The parent's matches for a fetch, as rows (on the parent's queue, pending changes included).
    func parentRows<T>(_ parent: NSManagedObjectContext, _ request: NSFetchRequest<T>, plan: FetchPlan) throws -> [ParentRow] {
        let copy = NSFetchRequest<NSManagedObject>(entityName: plan.entity.name ?? "")
        copy.predicate = request.predicate
        copy.sortDescriptors = request.sortDescriptors
        copy.includesSubentities = request.includesSubentities
        // Limit and offset are applied here, after this context's own changes.
        return try parent.performAndWait {
            try parent.fetch(copy).map { object in
                if object.isFault { try object.fulfillFault() }
                return ParentRow(id: object.objectID, values: object.values, version: object.version)
            }
        }
    }

    /// A child's fetch: the parent's rows, this context's own pending changes on top, then sort, offset
    /// and limit in memory.
    func fetchThroughParent<T>(_ parent: NSManagedObjectContext, _ request: NSFetchRequest<T>, plan: FetchPlan) throws -> [NSManagedObject] {
        adoptParentsStoreKeys(parent)
        var result: [NSManagedObject] = []
        for row in try parentRows(parent, request, plan: plan) {
            let object: NSManagedObject
            if let registered = registry[row.id.key] {
                object = registered
                if object.isFault { object.takeRow(row.values, version: row.version) }
            } else {
                object = NSManagedObject.makeFetched(entity: row.id.entity, id: row.id, context: self)
                object.takeRow(row.values, version: row.version)
                registry[row.id.key] = object
                newlyRegistered?.append(object)
            }
            if object.isDeleted || touched[ObjectIdentifier(object)] != nil { continue }
            result.append(object)
        }
        let included = Set(plan.entityIDs ?? plan.layout.root.layout.entityIDs)
        let predicate = plan.predicate.map { NSPredicate(node: $0) }
        let candidates = inserted.objects
            + touched.values.filter { !$0.isDeleted }
        for object in candidates where included.contains(object.layout.entityID) {
            if let predicate, try !predicate.evaluate(validatingReader: object) { continue }
            result.append(object)
        }
        if !plan.descriptors.isEmpty { result = result.sorted(using: plan.descriptors) }
        if plan.offset > 0 { result = Array(result.dropFirst(plan.offset)) }
        if plan.limit > 0 { result = Array(result.prefix(plan.limit)) }
        return result
    }

    /// Fires a child's fault with the parent's current values. A row the parent does not have is gone
    /// (the child's fault stays unread); a store error of the parent's is thrown.
    func readRowsFromParent(_ parent: NSManagedObjectContext, _ objects: [NSManagedObject]) throws {
        let ids = objects.map(\.objectID)
        let rows: [ParentRow?] = try parent.performAndWait {
            try ids.map { id in
                guard let object = try parent.registeredObject(for: id) ?? parent.existingObjectUnlessGone(with: id) else { return nil }
                if object.isFault { try object.fulfillFault() }
                return ParentRow(id: id, values: object.values, version: object.version)
            }
        }
        for (object, row) in zip(objects, rows) {
            if let row { object.takeRow(row.values, version: row.version) }
        }
    }

    /// A child's save: prepared as a save into the store is (without the uniqueness check, which the
    /// store save makes), then its inserts, updates and deletes are applied to the parent (as the
    /// parent's own pending changes) on the parent's queue, which processes them at once: the parent
    /// posts `ObjectsDidChange` and its fetched results controllers follow, as for its own edits.
    func saveToParent(_ parent: NSManagedObjectContext) throws {
        let draft = try prepareSave(policy: nil)
        let changed = draft.updated.map { $0.layout.changedSlotSet(from: $0.snapshot!, to: $0.values) }
        let inserts = draft.inserted.map { ($0.objectID, $0.values) }
        let updates = zip(draft.updated, changed).map { object, slots in (object.objectID, slots, object.values) }
        let deletes = draft.deleted.map(\.objectID)
        try parent.performAndWait {
            // The parent's objects to update read their rows first: a store that fails leaves the
            // parent as it was, and the save throws.
            let targets = try updates.map { id, _, _ in
                let object = parent.object(with: id)
                if object.isFault { try object.fulfillFault() }
                return object
            }
            for (id, values) in inserts {
                let object = id.entity.layout.objectClass.init(entity: id.entity, insertInto: nil)
                object.objectID = id
                object.values = values
                parent.insert(object)
                parent.childStoreKeys.noteInserted(id.key)
            }
            for (object, (_, slots, values)) in zip(targets, updates) {
                for slot in slots where object.values[slot] != values[slot] {
                    object.values[slot] = values[slot]
                    parent.objectDidChange(object, slot: slot)
                }
            }
            for id in deletes {
                let object = parent.object(with: id)
                if object.managedObjectContext === parent { parent.delete(object) }
            }
            parent.processPendingChanges()
        }
        var saved = SavedChanges(savedBy: self, reachedStore: false)
        setPersisted(draft.inserted, listedAt: draft.mark)
        for object in draft.inserted {
            object.snapshot = object.values
            saved.inserted.append(.init(id: object.objectID, values: object.values, version: object.version, changedSlots: object.layout.persistentSlotSet))
        }
        for (object, slots) in zip(draft.updated, changed) {
            object.snapshot = object.values
            saved.updated.append(.init(id: object.objectID, values: object.values, version: object.version, changedSlots: slots))
        }
        finishSave(saved, draft)
    }
}

import Foundation

extension IncrementalStoreBackend {
    /// Permanent keys for inserted objects: the store's `obtainPermanentIDs(for:)`, each ID's key.
    func permanentKeys(for objects: [NSManagedObject], root: Int) throws -> [Int64] {
        let store = try liveStore()
        let ids = try store.obtainPermanentIDs(for: objects)
        guard ids.count == objects.count else {
            throw CoreDataError(NSPersistentStoreOperationError, "\(type(of: store)).obtainPermanentIDs(for:) returned \(ids.count) IDs for \(objects.count) objects")
        }
        return try zip(objects, ids).map { object, id in
            guard case .permanent(let idRoot, let pk) = id.key, idRoot == root, store.reference(of: id.key) != nil else {
                throw CoreDataError(NSPersistentStoreOperationError, "\(type(of: store)).obtainPermanentIDs(for:) returned \(id) for an object of \(object.entity.name ?? "?"): IDs are made with newObjectID(for:referenceObject:)")
            }
            return pk
        }
    }

    /// Checks versions (optimistic locking), lets the context's policy resolve conflicts, then hands the
    /// store an `NSSaveChangesRequest`. Nothing is written when the policy or the store throws.
    func save(_ changes: StoreChanges, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution]) throws -> StoreSaveOutcome {
        let store = try liveStore()
        guard !store.isReadOnly else {
            throw CoreDataError(NSPersistentStoreSaveError, "cannot save: the store at \(store.url?.path ?? "?") is read-only; nothing was written")
        }
        try changes.beforeCommit?()
        let context = (changes.insertedObjects.first ?? changes.updatedObjects.first ?? changes.deletedObjects.first)?.managedObjectContext
        var inserted = changes.insertedObjects
        var updated = Dictionary(changes.updatedObjects.map { ($0.objectID.key, $0) }, uniquingKeysWith: { a, _ in a })
        var deleted = Dictionary(changes.deletedObjects.map { ($0.objectID.key, $0) }, uniquingKeysWith: { a, _ in a })
        var outcome = StoreSaveOutcome()
        let conflicts = try self.conflicts(changes, context: context)
        if !conflicts.isEmpty {
            for (key, decision) in try resolve(conflicts) {
                let current = conflicts.first { $0.key == key }?.current
                switch decision {
                case .write: break
                case .delete: break
                case .keepStore:
                    updated[key] = nil
                    deleted[key] = nil
                    outcome.rows[key] = .some(current)
                case .reinsert:
                    if let object = updated.removeValue(forKey: key) { inserted.append(object) }
                }
            }
        }
        // Objects `detectConflicts(for:)` flagged are locked; they are updated only if they also changed.
        let locked = Set(updated.values.filter { $0.existingExtras?.checksVersion == true })
        let request = NSSaveChangesRequest(insertedObjects: Set(inserted), updatedObjects: Set(updated.values.filter { !locked.contains($0) || $0.isUpdated }),
                                           deletedObjects: Set(deleted.values), lockedObjects: locked.isEmpty ? nil : locked)
        _ = try store.execute(request, with: context)
        outcome.insertedPrimaryKeys = changes.inserts.map { insert in
            if case .permanent(_, let pk)? = insert.key { return pk }
            return 0
        }
        // Each updated object takes its node as the store now has it (its new version).
        let reader = try context ?? someContext(.latest)
        for update in changes.updates where outcome.rows[update.key] == nil {
            // After the write: a record gone is gone; a read that fails leaves the object as it was saved.
            guard let id = objectID(update.key), let row = try? rowUnlessGone(of: id, context: reader) as StoreRow?? else { continue }
            outcome.rows[update.key] = .some(row)
        }
        return outcome
    }

    /// The updated and deleted objects whose node's version is not the one they read, or that have no node.
    private func conflicts(_ changes: StoreChanges, context: NSManagedObjectContext?) throws -> [StoreConflict] {
        let reader = try context ?? someContext(.latest)
        var conflicts: [StoreConflict] = []
        let checked = changes.updates.map { ($0.key, $0.version, false) } + changes.deletes.map { ($0.key, $0.version, true) }
        for (key, version, isDelete) in checked {
            let current = try objectID(key).flatMap { try rowUnlessGone(of: $0, context: reader) }
            if current?.version != version {
                conflicts.append(StoreConflict(key: key, isDelete: isDelete, current: current, objectVersion: version))
            }
        }
        return conflicts
    }
}

import Foundation

extension NSManagedObjectContext {
    /// Mirrors `mergeChanges(fromContextDidSave:)`: brings another context's saved changes into this one,
    /// from the notification's sets (`DidSave`'s objects, or `didSaveObjectIDsNotification`'s and a history
    /// transaction's IDs), as Core Data does. Call it on this context's queue (inside `perform`). Inserted
    /// objects are registered (as faults holding their row), updated ones take the saved values while
    /// keeping this context's own unsaved changes, deleted ones are removed; the values are read where the
    /// save put them: the store (through the coordinator's cache when the saving context shares this
    /// one's coordinator), or the saving child's parent. Posts `ObjectsDidChange` with what changed here.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        // One of this library's save notifications carries the values its save wrote: merged as they are,
        // so that merging an older save never shows a newer one's values.
        if let saved = notification.userInfo?[SavedChanges.userInfoKey] as? SavedChanges {
            return merge(saved)
        }
        let info = notification.userInfo ?? [:]
        let inserted = objectIDs(in: info, NSInsertedObjectsKey, NSInsertedObjectIDsKey)
        let updated = objectIDs(in: info, NSUpdatedObjectsKey, NSUpdatedObjectIDsKey)
        let deleted = objectIDs(in: info, NSDeletedObjectsKey, NSDeletedObjectIDsKey)
        let source = notification.object as? NSManagedObjectContext
        if let source, let holder = source.parent, holder !== self {
            return mergeFromContext(holder, inserted: inserted, updated: updated, deleted: deleted)
        }
        let shared = source != nil && source?.persistentStoreCoordinator === persistentStoreCoordinator
        mergeRemote(inserted: inserted, updated: updated, deleted: deleted, bypassingCache: !shared)
    }

    /// Mirrors `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`: the dictionary holds
    /// `NSInsertedObjectsKey` / `NSUpdatedObjectsKey` / `NSDeletedObjectsKey` (or the `…ObjectIDsKey`
    /// forms) with arrays or sets of `NSManagedObjectID`s or their URIs, from another process for example.
    /// Each context merges on its own queue; rows are read from the store.
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]) {
        for context in contexts {
            context.performAndWait {
                let info = changeNotificationData
                context.mergeRemote(inserted: context.objectIDs(in: info, NSInsertedObjectsKey, NSInsertedObjectIDsKey),
                                    updated: context.objectIDs(in: info, NSUpdatedObjectsKey, NSUpdatedObjectIDsKey),
                                    deleted: context.objectIDs(in: info, NSDeletedObjectsKey, NSDeletedObjectIDsKey))
            }
        }
    }

    /// The objects some keys of a change dictionary name: managed objects, object IDs or their URIs, in
    /// arrays or sets.
    private func objectIDs(in info: [AnyHashable: Any], _ keys: String...) -> [NSManagedObjectID] {
        keys.flatMap { key -> [NSManagedObjectID] in
            let raw = info[key]
            let items: [Any] = (raw as? [Any]) ?? (raw as? Set<AnyHashable>).map { $0.map(\.base) } ?? (raw as? NSSet)?.allObjects ?? []
            return items.compactMap { item in
                if let id = item as? NSManagedObjectID { return id }
                if let object = item as? NSManagedObject { return object.objectID }
                if let url = item as? URL { return persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) }
                return nil
            }
        }
    }

    private func mergeRemote(inserted: [NSManagedObjectID], updated: [NSManagedObjectID], deleted: [NSManagedObjectID],
                             bypassingCache: Bool = true) {
        advanceQueryGeneration()
        guard let coordinator = persistentStoreCoordinator else { return }
        var saved = SavedChanges(source: ObjectIdentifier(coordinator), coordinator: ObjectIdentifier(coordinator))
        func rows(_ ids: [NSManagedObjectID]) -> [SavedChanges.Row] {
            let saved = ids.filter { $0.primaryKey != nil }
            guard !saved.isEmpty else { return [] }
            let loaded: [ObjectKey: StoreRow]
            do { loaded = try coordinator.loadRows(saved.map(\.key), bypassingCache: bypassingCache, in: currentStateReadScope) } catch {
                // A row that is gone is left out (below); a store that fails is not a merge of nothing.
                Self.storeReadFailed(error, reading: "the merged rows (\(saved.count)) of", saved[0])
            }
            return saved.compactMap { id in
                guard let row = loaded[id.key], let values = row.values else { return nil }
                let entity = coordinator.managedObjectModel.entity(number: row.entityID) ?? id.entity
                let real = NSManagedObjectID(entity: entity, key: id.key, storeIdentifier: id.storeIdentifier)
                let old = registry[id.key]?.snapshot
                return .init(id: real, values: values, version: row.version, changedSlots: entity.layout.changedSlotSet(from: old, to: values))
            }
        }
        saved.inserted = rows(inserted)
        saved.updated = rows(updated)
        saved.deleted = deleted
        merge(saved)
    }

    /// A child's save merged into another context: its values are in the child's parent now, read there
    /// on that context's queue (an object the parent no longer holds is left out).
    private func mergeFromContext(_ holder: NSManagedObjectContext, inserted: [NSManagedObjectID], updated: [NSManagedObjectID],
                                  deleted: [NSManagedObjectID]) {
        let coordinator = persistentStoreCoordinator.map { ObjectIdentifier($0) } ?? ObjectIdentifier(holder)
        var saved = SavedChanges(source: ObjectIdentifier(holder), coordinator: coordinator)
        let held: [ParentRow?] = holder.performAndWait {
            (inserted + updated).map { id in
                guard let object = holder.registeredObject(for: id), !object.isFault else { return nil }
                return ParentRow(id: id, values: object.values, version: object.version)
            }
        }
        let rows = held.compactMap { $0 }.map { row in
            SavedChanges.Row(id: row.id, values: row.values, version: row.version,
                             changedSlots: row.id.entity.layout.changedSlotSet(from: registry[row.id.key]?.snapshot, to: row.values))
        }
        let insertedIDs = Set(inserted)
        saved.inserted = rows.filter { insertedIDs.contains($0.id) }
        saved.updated = rows.filter { !insertedIDs.contains($0.id) }
        saved.deleted = deleted
        merge(saved)
    }

    /// Applies saved changes to this context's registered objects and announces them
    /// (`ObjectsDidChange`), then posts `didMergeChangesObjectIDsNotification`.
    func merge(_ saved: SavedChanges) {
        advanceQueryGeneration()
        let refreshed = mergeRows(saved)
        NotificationCenter.default.post(name: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: self, userInfo: [
            NSInsertedObjectIDsKey: Set(saved.inserted.map(\.id)),
            NSUpdatedObjectIDsKey: Set(saved.updated.map(\.id)),
            NSDeletedObjectIDsKey: Set(saved.deleted),
            NSRefreshedObjectIDsKey: refreshed,
        ])
    }

    /// The merge itself: returns the IDs of the registered objects it refreshed.
    private func mergeRows(_ saved: SavedChanges) -> Set<NSManagedObjectID> {
        processPendingChanges()
        var insertedHere: [NSManagedObject] = []
        var updatedHere: [NSManagedObject] = []
        var deletedHere: [NSManagedObject] = []
        var changedKeys: [(NSManagedObjectID, Set<Int>)] = []
        var unregistered: [SavedChanges.Row] = []
        var unregisteredDeletes: [NSManagedObjectID] = []
        var absorbed: [NSManagedObject] = []
        for row in saved.inserted {
            let (object, isNew) = objectForMergedRow(row)
            if isNew { insertedHere.append(object) } else { absorb(object, row, versioned: saved.reachedStore); absorbed.append(object) }
        }
        for row in saved.updated {
            guard let object = registry[row.id.key] else {
                // Not registered here, so not announced (as in Core Data); but a fetched results controller
                // must still see it: the save may have made it match the controller's predicate.
                unregistered.append(row)
                continue
            }
            let visible = absorb(object, row, versioned: saved.reachedStore)
            absorbed.append(object)
            updatedHere.append(object)
            changedKeys.append((object.objectID, visible))
        }
        reapplyKeptRelationshipChanges(absorbed.filter { touched[ObjectIdentifier($0)] != nil })
        for id in saved.deleted {
            guard let object = registry.removeValue(forKey: id.key) else {
                unregisteredDeletes.append(id)  // may still move a controller's fetchLimit/fetchOffset window
                continue
            }
            touched[ObjectIdentifier(object)] = nil
            setLifecycle(.removed, of: object)
            deletedHere.append(object)
        }
        let refreshed = Set(updatedHere.map(\.objectID))
        guard !(insertedHere.isEmpty && updatedHere.isEmpty && deletedHere.isEmpty && unregistered.isEmpty && unregisteredDeletes.isEmpty) else { return refreshed }
        var announced = AnnouncedChanges(changedSlots: changedKeys)
        (announced.inserted, announced.updated, announced.deleted) = (Set(insertedHere), Set(updatedHere), Set(deletedHere))
        announced.unregisteredUpdated = unregistered
        announced.unregisteredDeleted = unregisteredDeletes
        changeObservers.tell(.objects(announced))
        var info: [AnyHashable: Any] = [:]
        if !insertedHere.isEmpty { info[NSInsertedObjectsKey] = announced.inserted }
        if !updatedHere.isEmpty {
            info[NSUpdatedObjectsKey] = announced.updated
            info[NSRefreshedObjectsKey] = announced.updated
        }
        if !deletedHere.isEmpty { info[NSDeletedObjectsKey] = announced.deleted }
        NotificationCenter.default.post(name: .contextObjectsDidChange, object: self, userInfo: info)
        return refreshed
    }

    /// The registered object for a merged row, or a fault holding the row (no query) registered now, and
    /// whether it was made now (a controller unregisters it again if it has no use for it).
    func objectForMergedRow(_ row: SavedChanges.Row) -> (object: NSManagedObject, isNew: Bool) {
        if let object = registry[row.id.key] { return (object, false) }
        let object = NSManagedObject.makeFetched(entity: row.id.entity, id: row.id, context: self)
        object.holdRow(row.values, version: row.version)
        registry[row.id.key] = object
        return (object, true)
    }

    /// Forgets an object made by ``objectForMergedRow(_:)`` that nobody kept.
    func unregisterMergedObject(_ object: NSManagedObject) {
        guard registry[object.objectID.key] === object, !object.hasChanges else { return }
        registry[object.objectID.key] = nil
    }

    /// The registered object for a row a fetched results controller kept unregistered (outside its
    /// window), now that the row enters the window: the object registered under its ID if there is
    /// one, else `object`, registered now.
    func registerKept(_ object: NSManagedObject) -> NSManagedObject {
        if let registered = registry[object.objectID.key] { return registered }
        registry[object.objectID.key] = object
        return object
    }

    /// A fault for a row, not registered unless it already was (rows a cached controller keeps outside
    /// its window).
    func unregisteredFault(for id: NSManagedObjectID) -> NSManagedObject {
        registry[id.key] ?? NSManagedObject.makeFetched(entity: id.entity, id: id, context: self)
    }

    /// Takes a saved row into a registered object, keeping this context's unsaved changes on top.
    /// Returns the slots whose visible values changed.
    ///
    /// With `versioned` (a save that reached the store, whose row versions are the store's), a row older
    /// than the one the object holds changes nothing: saves reach a context in the order their
    /// notifications were posted, each on its saving context's queue, which need not be the order in
    /// which they committed.
    @discardableResult
    private func absorb(_ object: NSManagedObject, _ row: SavedChanges.Row, versioned: Bool = false) -> Set<Int> {
        if versioned, row.version < object.heldRowVersion { return [] }
        if object.isFault {
            object.holdRow(row.values, version: row.version)
            return row.changedSlots
        }
        let before = object.values
        var values = row.values
        if let snapshot = object.snapshot {
            for slot in object.layout.persistentSlots where object.values[slot] != snapshot[slot] { values[slot] = object.values[slot] }
        }
        for slot in object.layout.properties.indices where object.layout.properties[slot].isTransient { values[slot] = object.values[slot] }
        object.values = values
        object.snapshot = row.values
        object.version = row.version
        return Set(object.layout.changedSlots(from: before, to: values, among: Array(object.layout.properties.indices)))
    }

    /// Mirrors `refresh(_:mergeChanges:)`. With `false` the object becomes a fault again and loses its
    /// unsaved changes; with `true` it rereads its row from the store and keeps its unsaved changes on top.
    public func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        guard object.managedObjectContext === self, !object.isInserted, object.objectKey.primaryKey != nil else { return }
        object.forgetFetchedValues()
        let key = object.objectID.key
        if !flag || object.isFault {
            object.turnIntoFault {
                touched[ObjectIdentifier(object)] = nil
                unprocessed.updated[ObjectIdentifier(object)] = nil
                object.clearSaveMarks()
                object.values = []
                object.snapshot = nil
                object.faultState = .fault
            }
            persistentStoreCoordinator?.forgetCachedRow(key)
            return
        }
        let row: StoreRow?
        do { row = try persistentStoreCoordinator?.loadRows([key], bypassingCache: true, in: storeReadScope())[key] } catch {
            Self.storeReadFailed(error, reading: "the row to refresh of", object.objectID)
        }
        // A row that is gone leaves the object as it is (its next save reports the conflict).
        guard let row, let values = row.values else { return }
        absorb(object, .init(id: object.objectID, values: values, version: row.version, changedSlots: []))
        object.snapshotEventsDidApply(.refresh)
    }

    /// Mirrors `refreshAllObjects()`: objects with unsaved changes reread their rows and keep the changes;
    /// the others become faults and read fresh values when next used.
    public func refreshAllObjects() {
        processPendingChanges()
        let objects = allRegisteredObjects
        for object in objects where !object.isInserted {
            refresh(object, mergeChanges: object.hasChanges)
        }
        let refreshed = Set(objects)
        changeObservers.tell({
            var announced = AnnouncedChanges(changedSlots: [:])
            announced.updated = refreshed
            return .objects(announced)
        }())
        NotificationCenter.default.post(name: .contextObjectsDidChange, object: self,
                                        userInfo: [NSRefreshedObjectsKey: refreshed])
    }
}

import Foundation

/// `relationshipKeyPathsForPrefetching`: after a fetch of managed objects (or as each batch of a batched
/// fetch loads), the objects its relationships reach are loaded for all the fetched objects at once.
///
/// Each relationship of the paths costs one query, whatever the number of objects (the keys bound as one
/// JSON array, see `SQLiteKeyList`; 500 keys a query on a SQLite without JSON functions):
/// - a to-one: the destination rows by key, `… FROM json_each(?) k JOIN ZCLASSIFICATION t0 ON t0.Z_PK =
///   k.value`, for the destinations not registered with their values yet (none when all are);
/// - a to-many: its members' rows with their owner's position, `… JOIN ZANIMAL t0 ON t0.ZCLASSIFICATION =
///   k.value` (a many-to-many joins its join table), for the owners whose set was not read yet; the sets
///   are filled from the same rows.
/// The destination objects come back registered with their values (not faults), then the next
/// relationship of a path starts from them. The fetched objects themselves stay as the request asked
/// (faults holding their rows, by default), with their to-many sets filled in.
extension NSManagedObjectContext {
    /// Prefetches `nodes` for the objects of a fetch (or of one batch).
    func prefetch(_ nodes: [PrefetchNode], for objects: [NSManagedObject]) throws {
        guard !nodes.isEmpty, !objects.isEmpty else { return }
        // A controller unregisters again the objects its fetch registered outside its window; the
        // objects prefetched are not the fetch's rows, so they are not on that list.
        let registering = newlyRegistered
        newlyRegistered = nil
        defer { newlyRegistered = registering }
        if let parent {
            // The parent prefetches for its own objects (its queries, or its parent's), then this
            // context reads what it needs from the parent's memory.
            let ids = objects.compactMap { $0.objectID.isTemporaryID ? nil : $0.objectID }
            try parent.performAndWait { try parent.prefetch(nodes, for: ids.compactMap { parent.registeredObject(for: $0) }) }
        }
        for node in nodes { try prefetch(node, owners: objects) }
    }

    private func prefetch(_ node: PrefetchNode, owners: [NSManagedObject]) throws {
        let unread = owners.filter { $0.faultState.needsRow }
        if !unread.isEmpty { try readRows(of: unread) }
        let destinations: [NSManagedObject]
        if !node.relationship.isToMany, parent == nil, queryGeneration == nil, let coordinator = persistentStoreCoordinator,
           !coordinator.hasIncrementalStore {
            destinations = try loadedToOneDestinations(node, owners, coordinator)
        } else {
            destinations = node.relationship.isToMany ? try toManyDestinations(node, owners) : toOneDestinations(node, owners)
            let unreadDestinations = destinations.filter { $0.faultState.needsRow }
            if !unreadDestinations.isEmpty { try readRows(of: unreadDestinations) }
        }
        for object in destinations {
            if case .holdingRow(let row, let version) = object.faultState { object.takeRow(row, version: version) }
        }
        for child in node.children { try prefetch(child, owners: destinations) }
    }

    /// The objects a to-one names for some owners, each once, registered (as faults if they were not).
    /// The references are sorted and made unique first, so that each destination costs one registry
    /// lookup however many owners name it.
    private func toOneDestinations(_ node: PrefetchNode, _ owners: [NSManagedObject]) -> [NSManagedObject] {
        var refs: [ObjectRef] = []
        refs.reserveCapacity(owners.count)
        for owner in owners {
            if let ref = owner.storedValue(node.slot)?.objectRef { refs.append(ref) }
        }
        refs.sort { a, b in
            switch (a.key, b.key) {
            case let (.permanent(r1, k1), .permanent(r2, k2)): return (r1, k1) < (r2, k2)
            case let (.temporary(t1), .temporary(t2)): return t1 < t2
            case (.permanent, .temporary): return true
            case (.temporary, .permanent): return false
            }
        }
        var unique: [ObjectRef] = []
        unique.reserveCapacity(refs.count)
        for ref in refs where ref.key != unique.last?.key { unique.append(ref) }
        var result: [NSManagedObject] = []
        result.reserveCapacity(unique.count)
        registry.reserveCapacity(registry.count + unique.count)
        let identifier = persistentStoreCoordinator?.soleStoreIdentifier
        for ref in unique {
            if let object = object(for: ref, storeIdentifier: identifier) { result.append(object) }
        }
        return result
    }

    /// The objects a to-one names for some owners, each once, registered and loaded, read from the
    /// store (or its row cache) in one query: the keys are sorted and made unique first; the objects of
    /// keys not registered yet are made from their rows and registered together, without looking each
    /// key up when the context holds no object of the destination's hierarchy (see
    /// ``ObjectRegistry/mayHold(root:)``). A key whose row is gone gets a fault, as ``object(for:)``
    /// makes one. For a context with its own store reads (no parent, no query generation, no
    /// incremental store).
    private func loadedToOneDestinations(_ node: PrefetchNode, _ owners: [NSManagedObject], _ coordinator: NSPersistentStoreCoordinator) throws -> [NSManagedObject] {
        let root = node.relationship.destinationRootID
        let destinationEntity = node.relationship.destination
        let oneEntity = destinationEntity.layout.entityIDs.count == 1
        var pks: [Int64] = []
        pks.reserveCapacity(owners.count)
        var entityOf: [Int64: Int] = [:]
        var result: [NSManagedObject] = []
        var inserted = Set<ObjectKey>()
        for owner in owners {
            guard let ref = owner.storedValue(node.slot)?.objectRef else { continue }
            guard case .permanent(_, let pk) = ref.key else {
                // An object inserted and not saved: registered already (here or in a parent).
                if inserted.insert(ref.key).inserted, let object = object(for: ref) { result.append(object) }
                continue
            }
            pks.append(pk)
            if !oneEntity { entityOf[pk] = ref.entityID }
        }
        pks.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(pks.count)
        for pk in pks where pk != unique.last { unique.append(pk) }

        // Registered objects are used as they are (their rows read if they are faults); the others made.
        var toRead: [Int64] = []
        var waiting: [NSManagedObject?] = []
        toRead.reserveCapacity(unique.count)
        waiting.reserveCapacity(unique.count)
        let looksUp = registry.mayHold(root: root)
        for pk in unique {
            if looksUp, let object = registry[.permanent(root: root, pk: pk)] {
                result.append(object)
                guard object.faultState.needsRow else { continue }
                waiting.append(object)
            } else {
                waiting.append(nil)
            }
            toRead.append(pk)
        }
        guard !toRead.isEmpty else { return result }
        let rows = try coordinator.loadRows(root: root, pks: toRead, maxAge: stalenessInterval < 0 ? nil : stalenessInterval)
        let model = coordinator.managedObjectModel
        let identifier = try coordinator.soleStoreIdentifier ?? coordinator.storeIdentifier(root: root)
        var made: [NSManagedObject] = []
        made.reserveCapacity(toRead.count)
        for (i, row) in rows.enumerated() {
            if let object = waiting[i] {
                if let row, let values = row.values { object.takeRow(values, version: row.version) }
                continue
            }
            let key = ObjectKey.permanent(root: root, pk: toRead[i])
            let entityID = row?.entityID ?? entityOf[toRead[i]] ?? destinationEntity.layout.entityID
            guard let entity = model.entity(number: entityID) else { continue }
            let object = NSManagedObject.makeFetched(entity: entity, id: NSManagedObjectID(entity: entity, key: key, storeIdentifier: identifier), context: self)
            if let row, let values = row.values { object.takeRow(values, version: row.version) }
            made.append(object)
        }
        registry.registerNew(made, root: root)
        result.append(contentsOf: made)
        return result
    }

    /// The members of a to-many for some owners, each once: those of sets already read, and those of the
    /// sets still faults, read now for all those owners in one query (which also brings their rows).
    private func toManyDestinations(_ node: PrefetchNode, _ owners: [NSManagedObject]) throws -> [NSManagedObject] {
        var seen = Set<ObjectIdentifier>()
        var result: [NSManagedObject] = []
        func add(_ object: NSManagedObject) {
            if seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
        }
        var pending: [NSManagedObject] = []
        var pendingKeys: [Int64] = []
        for owner in owners {
            guard let value = owner.storedValue(node.slot) else { continue }
            if value.isToManyFault {
                if let pk = owner.objectID.primaryKey {
                    pending.append(owner)
                    pendingKeys.append(pk)
                }
                continue
            }
            for ref in value.objectRefs { if let object = object(for: ref) { add(object) } }
        }
        guard !pending.isEmpty else { return result }
        if parent != nil {
            // A child context reads the sets from its parent, which prefetched them.
            for owner in pending {
                if owner.isFault { owner.fireFault() }
                for ref in owner.loadedToMany(node.slot).objectRefs { if let object = object(for: ref) { add(object) } }
            }
            return result
        }
        guard let coordinator = persistentStoreCoordinator else { return result }
        var members = [[ObjectRef]](repeating: [], count: pending.count)
        let identifier = try coordinator.storeIdentifier(root: node.relationship.destinationRootID)
        for (owner, row) in try coordinator.prefetchToMany(node.relationship, owners: pendingKeys) {
            let object = try registeredObject(for: row, keepingFault: false, storeIdentifier: identifier)
            members[owner].append(ObjectRef(key: object.objectID.key, entityID: row.entityID))
            add(object)
        }
        for (owner, refs) in zip(pending, members) {
            owner.fillToMany(node.slot, Self.toManyValue(refs, node.relationship))
        }
        return result
    }
}

extension NSManagedObject {
    /// A slot's value as stored, without firing the fault: from the values, or from the row a fault
    /// holds; `nil` for a fault that must still read its row.
    func storedValue(_ slot: Int) -> Value? {
        switch faultState {
        case .loaded, .rowGone: return slot < values.count ? values[slot] : nil
        case .holdingRow(let row, _): return slot < row.count ? row[slot] : nil
        case .fault, .inBatch: return nil
        }
    }

    /// Fills a to-many slot that is still a fault with the set read (as its value and as what it read),
    /// without firing the object's fault: a fault holding its row gets it in that row.
    func fillToMany(_ slot: Int, _ value: Value) {
        switch faultState {
        case .holdingRow(var row, let version):
            guard slot < row.count, row[slot].isToManyFault else { return }
            faultState = .fault // lets go of the row, so that it is not copied
            row[slot] = value
            faultState = .holdingRow(row, version: version)
        case .loaded:
            guard slot < values.count, values[slot].isToManyFault else { return }
            fillToManyFault(slot, value)
        case .fault, .inBatch, .rowGone:
            return
        }
    }
}

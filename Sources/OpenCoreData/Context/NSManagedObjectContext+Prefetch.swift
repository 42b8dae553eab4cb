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
/// The destination objects come back registered with their values (not faults; a to-one's new ones
/// made bare, their values the rows read, see ``FaultBatch/isLoaded``), then the next relationship of
/// a path starts from them. The fetched objects themselves stay as the request asked
/// (faults holding their rows, by default), with their to-many sets filled in.
extension NSManagedObjectContext {
    /// Prefetches `nodes` for the objects of a fetch (or of one batch).
    func prefetch(_ nodes: [PrefetchNode], for objects: [NSManagedObject]) throws {
        guard !nodes.isEmpty, !objects.isEmpty else { return }
        // Rows of a store with a tag (several stores hold their entity) are not prefetched: their
        // relationships are read when their faults fire (docs/Store.md, "Overlapping configurations").
        if persistentStoreCoordinator?.hasTaggedStores ?? false, objects.contains(where: { $0.objectKey.storeTag != 0 }) { return }
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
        let unread = owners.filter(\.needsRow)
        if !unread.isEmpty { try readRows(of: unread) }
        let destinations: [NSManagedObject]
        if !node.relationship.isToMany, parent == nil, queryGeneration == nil, let coordinator = persistentStoreCoordinator,
           !coordinator.hasIncrementalStore {
            destinations = try loadedToOneDestinations(node, owners, coordinator)
        } else {
            destinations = node.relationship.isToMany ? try toManyDestinations(node, owners) : toOneDestinations(node, owners)
            let unreadDestinations = destinations.filter(\.needsRow)
            if !unreadDestinations.isEmpty { try readRows(of: unreadDestinations) }
            for object in destinations {
                if case .holdingRow(let row, let version) = object.faultState { object.takeRow(row, version: version) }
            }
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
    /// store (or its row cache) in one query: the keys are sorted and made unique first; registered
    /// objects are used as they are (their rows read if they are faults), the others made from their
    /// rows (``loadedObjects(_:root:identifier:model:)``), without looking each key up when the context
    /// holds no object of the destination's hierarchy (see ``ObjectRegistry/mayHold(root:)``). A key
    /// whose row is gone gets a fault, as ``object(for:)`` makes one. For a context with its own store
    /// reads (no parent, no query generation, no incremental store).
    private func loadedToOneDestinations(_ node: PrefetchNode, _ owners: [NSManagedObject], _ coordinator: NSPersistentStoreCoordinator) throws -> [NSManagedObject] {
        let root = node.relationship.destinationRootID
        let keys = toOneKeys(node, owners)
        var pks = keys.pks, result = keys.unsaved
        var waiting: [NSManagedObject?] = []
        if registry.mayHold(root: root) {
            var toRead: [Int64] = []
            for pk in pks {
                guard let object = registry[.permanent(root: root, pk: pk)] else {
                    waiting.append(nil)
                    toRead.append(pk)
                    continue
                }
                result.append(object)
                if case .holdingRow(let row, let version) = object.faultState { object.takeRow(row, version: version) }
                guard object.faultState.needsRow else { continue }
                waiting.append(object)
                toRead.append(pk)
            }
            pks = toRead
        }
        guard !pks.isEmpty else { return result }
        var rows = try coordinator.loadRows(root: root, pks: pks, maxAge: stalenessInterval < 0 ? nil : stalenessInterval,
                                            in: try storeReadScope())
        var found: [StoreRow] = []
        found.reserveCapacity(rows.count)
        var gone: [Int64] = []
        for i in rows.indices {
            let row = rows[i].take()
            if !waiting.isEmpty, let object = waiting[i] {
                if let row, let values = row.values { object.takeRow(values, version: row.version) }
            } else if let row, row.values != nil {
                found.append(row)
            } else {
                gone.append(pks[i])
            }
        }
        let model = coordinator.managedObjectModel
        let identifier = try coordinator.soleStoreIdentifier ?? coordinator.storeIdentifier(root: root)
        result.append(contentsOf: loadedObjects(found, root: root, identifier: identifier, model: model))
        var faults: [NSManagedObject] = []
        for pk in gone {
            guard let entity = model.entity(number: keys.entityOf[pk] ?? node.relationship.destination.layout.entityID) else { continue }
            let key = ObjectKey.permanent(root: root, pk: pk)
            faults.append(NSManagedObject.makeFetched(entity: entity, id: NSManagedObjectID(entity: entity, key: key, storeIdentifier: identifier), context: self))
        }
        registry.registerNew(faults, root: root)
        result.append(contentsOf: faults)
        return result
    }

    /// The store keys a to-one names for some owners, sorted and each once; the entity of each when
    /// the destination has subentities; and the objects it names that are not saved yet (registered
    /// here or in a parent), each once.
    private func toOneKeys(_ node: PrefetchNode, _ owners: [NSManagedObject]) -> (pks: [Int64], entityOf: [Int64: Int], unsaved: [NSManagedObject]) {
        let oneEntity = node.relationship.destination.layout.entityIDs.count == 1
        var pks: [Int64] = []
        pks.reserveCapacity(owners.count)
        var entityOf: [Int64: Int] = [:]
        var unsaved: [NSManagedObject] = []
        var inserted = Set<ObjectKey>()
        for owner in owners {
            guard let ref = owner.storedValue(node.slot)?.objectRef else { continue }
            guard case .permanent(_, let pk) = ref.key else {
                if inserted.insert(ref.key).inserted, let object = object(for: ref) { unsaved.append(object) }
                continue
            }
            pks.append(pk)
            if !oneEntity { entityOf[pk] = ref.entityID }
        }
        return (Self.sortedUnique(pks), entityOf, unsaved)
    }

    /// `pks` in ascending order, each once: marked in a bitmap of their range when they fill at least a
    /// quarter of it (as the keys a to-one names usually do), else sorted.
    static func sortedUnique(_ pks: [Int64]) -> [Int64] {
        guard let first = pks.first else { return [] }
        var low = first, high = first
        for pk in pks {
            low = Swift.min(low, pk)
            high = Swift.max(high, pk)
        }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard pks.count >= 64, !overflow, span < Int64(pks.count) * 4 else {
            var unique: [Int64] = []
            unique.reserveCapacity(pks.count)
            for pk in pks.sorted() where pk != unique.last { unique.append(pk) }
            return unique
        }
        var marks = [UInt64](repeating: 0, count: Int(span) / 64 + 1)
        for pk in pks {
            let offset = Int(pk &- low)
            marks[offset >> 6] |= 1 << UInt64(offset & 63)
        }
        var unique: [Int64] = []
        unique.reserveCapacity(Swift.min(pks.count, Int(span) + 1))
        for (word, bits) in marks.enumerated() {
            var rest = bits
            while rest != 0 {
                unique.append(low &+ Int64(word * 64 + rest.trailingZeroBitCount))
                rest &= rest &- 1
            }
        }
        return unique
    }

    /// Objects for rows of hierarchy `root` that no registered object has, loaded: made bare, their
    /// values the rows' (a ``FaultBatch`` that ``FaultBatch/isLoaded``), registered as one group, then
    /// each told `awakeFromFetch()`.
    private func loadedObjects(_ rows: [StoreRow], root: Int, identifier: String, model: NSManagedObjectModel) -> [NSManagedObject] {
        guard !rows.isEmpty else { return [] }
        let batch = FaultBatch(size: rows.count, root: root, rows: rows, context: self, storeIdentifier: identifier, loaded: true)
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(rows.count)
        var entity: NSEntityDescription?
        var checked = -1
        for i in rows.indices {
            if rows[i].entityID != checked {
                entity = model.entity(number: rows[i].entityID)
                checked = rows[i].entityID
            }
            guard let entity else { continue }
            objects.append(NSManagedObject.makeBatchFault(entity: entity, batch: batch, index: i))
        }
        batch.objects = objects
        registry.register(batch, allNew: true)
        for object in objects { object.awakeFromFetch() }
        return objects
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
                if let pk = owner.objectKey.primaryKey {
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
                for ref in try owner.loadedToManyOrThrow(node.slot).objectRefs { if let object = object(for: ref) { add(object) } }
            }
            return result
        }
        guard let coordinator = persistentStoreCoordinator else { return result }
        var members = [[ObjectRef]](repeating: [], count: pending.count)
        let keyRoot = coordinator.defaultKeyRoot(node.relationship.destinationRootID)
        let identifier = try coordinator.storeIdentifier(root: keyRoot)
        for (owner, row) in try coordinator.prefetchToMany(node.relationship, owners: pendingKeys, in: try storeReadScope()) {
            let object = try registeredObject(for: row, keepingFault: false, keyRoot: keyRoot, storeIdentifier: identifier)
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
    /// Whether it is a fault that must read its row (``FaultState/needsRow``), told without making the
    /// fault state of a bare object.
    var needsRow: Bool {
        if let (batch, index) = bareBatch { return batch.needsRow(index) }
        return faultState.needsRow
    }

    /// A slot's value as stored, without firing the fault: from the values, or from the row a fault
    /// (or a bare object) holds; `nil` for a fault that must still read its row.
    func storedValue(_ slot: Int) -> Value? {
        if let (batch, index) = bareBatch { return batch.rowValue(index, slot) }
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

import Foundation

/// An object met while tracing a change back to the rows that read it: a managed object of the context,
/// a saved row the context never registered, or only a reference.
enum GraphNode {
    case object(NSManagedObject)
    case row(NSManagedObjectID, [Value])
    case ref(ObjectRef)
}

/// Changed objects of entities that a request's key paths read through relationships, grouped by the
/// related key they changed (see ``RequestKeyPaths``).
struct RelatedChanges {
    let keyPaths: RequestKeyPaths
    private(set) var reached: [RequestKeyPaths.RelatedKey: [GraphNode]] = [:]

    init(keyPaths: RequestKeyPaths) { self.keyPaths = keyPaths }

    var isEmpty: Bool { reached.isEmpty }

    /// Notes a changed object (of `entity`) whose slots `changed` changed (`nil`: all of them, as for a
    /// delete), under each related key it changed.
    mutating func note(_ node: GraphNode, entity: NSEntityDescription, changed: Set<Int>?) {
        guard let layout = entity.layout else { return }
        for key in keyPaths.relatedKeys(of: entity) {
            guard let slot = layout.slotByName[key.key], changed?.contains(slot) ?? true else { continue }
            reached[key, default: []].append(node)
        }
    }
}

extension NSManagedObjectContext {
    /// The rows of `plan` (its entity and subentities) that read, through relationships, a key that
    /// `changes` changed: each changed object is followed back, hop by hop, to the fetched entity — through
    /// the inverse relationship (``follow(_:through:to:)``), or by a fetch where the relationship has none
    /// (``holders(of:through:toMany:entity:)``). Returns them as objects of this context and those
    /// registered for this (``objects(for:)``). Throws the store's error.
    func rows(of plan: FetchPlan, reading changes: RelatedChanges) throws -> (objects: [NSManagedObject], made: [NSManagedObject]) {
        guard !changes.isEmpty else { return ([], []) }
        var roots = Set<ObjectRef>()
        for (key, nodes) in changes.reached {
            var current = nodes
            var refs = Set<ObjectRef>()
            for hop in key.back {
                if let inverse = hop.inverse {
                    refs = try follow(current, through: inverse, to: hop.entity)
                } else {
                    refs = try holders(of: Set(current.map(\.ref)), through: hop.forward, toMany: hop.forwardIsToMany, entity: hop.entity)
                }
                current = refs.map { .ref($0) }
            }
            roots.formUnion(refs)
        }
        let included = Set(plan.entityIDs ?? plan.layout.root.layout.entityIDs)
        return try objects(for: roots.filter { included.contains($0.entityID) })
    }

    /// Reads, for all of `objects` together, the to-many relationships named in `keys` that are still
    /// faults: one query per relationship (per 500 owners) instead of one per object when a predicate
    /// like `ANY zoos.name == 'Bronx'` is evaluated on each. Objects holding their row take it first (no
    /// query). A child context leaves them to its parent, one by one, when they are read. Throws the
    /// store's error.
    func readToManys(of objects: [NSManagedObject], keys: Set<String>) throws {
        guard parent == nil, let coordinator = persistentStoreCoordinator, !objects.isEmpty else { return }
        var owners: [OwnersKey: (r: RelationshipLayout, slot: Int, objects: [NSManagedObject])] = [:]
        for object in objects {
            guard object.managedObjectContext === self, let pk = object.objectKey.primaryKey, pk > 0 else { continue }
            for key in keys {
                guard let slot = object.layout.slotByName[key], case .toMany(let r) = object.layout.kinds[slot] else { continue }
                if case .holdingRow = object.faultState { object.fireFault() }
                guard !object.isFault, object.values[slot].isToManyFault else { continue }
                owners[OwnersKey(r, object.objectID.key), default: (r, slot, [])].objects.append(object)
            }
        }
        for (key, (r, slot, owned)) in owners {
            let map = try coordinator.loadRelationship(r, owners: owned.compactMap(\.objectKey.primaryKey), tag: key.tag,
                                                       in: try storeReadScope())
            for object in owned {
                let refs = map[object.objectKey.primaryKey!] ?? []
                object.fillToManyFault(slot, Self.toManyValue(refs, r))
            }
        }
    }

    /// The objects of `plan`'s entity whose values, as the plan's key paths read them through
    /// relationships, differ here from the store's: those reaching a related object with unsaved changes
    /// to a key the plan reads (or deleted here). A fetch takes them out of the store's answer and
    /// evaluates them in memory, as it does the objects changed here. Core Data's fetch leaves them to
    /// SQL, which reads the saved values.
    /// Returns `nil` when they cannot be found (a fetch behind a relationship without inverse failed).
    func rowsReadingUnsavedChanges(_ plan: FetchPlan) -> [NSManagedObject]? {
        guard !touched.isEmpty || !deleted.isEmpty else { return [] }
        let keyPaths = RequestKeyPaths(plan)
        guard keyPaths.readsRelatedObjects else { return [] }
        var changes = RelatedChanges(keyPaths: keyPaths)
        for object in touched.values where object.isUpdated && !object.isDeleted && !object.isFault {
            guard let snapshot = object.snapshot else { continue }
            changes.note(.object(object), entity: object.entity, changed: object.layout.changedSlotSet(from: snapshot, to: object.values))
        }
        for object in deleted.values { changes.note(.object(object), entity: object.entity, changed: nil) }
        return (try? rows(of: plan, reading: changes))?.objects
    }

    /// The objects that `nodes` reach through their relationship named `key`, kept when they are of
    /// `entity` (or a subentity): as this context sees them — a registered object's own values (unsaved
    /// changes included), else the store's.
    ///
    /// Reading costs at most two queries for all the nodes together: one for the rows of the nodes that
    /// are faults or not registered (when `key` is a to-one; the row cache may answer), and one per 500
    /// owners for the to-many relationships not read into memory yet (as a to-many fault reads them).
    /// A registered object whose to-many relationship was not read is as the store has it: changing a
    /// relationship in memory reads both sides first.
    func follow(_ nodes: [GraphNode], through key: String, to entity: NSEntityDescription) throws -> Set<ObjectRef> {
        guard let coordinator = persistentStoreCoordinator else { return [] }
        let model = coordinator.managedObjectModel
        var found = Set<ObjectRef>()
        var rowsToRead: [ObjectKey] = []
        var owners: [OwnersKey: (RelationshipLayout, [Int64])] = [:]

        func take(_ values: [Value], _ layout: EntityLayout, _ objectKey: ObjectKey, at position: Int? = nil) {
            guard let slot = layout.slotByName[key], let r = layout.relationship(slot) else { return }
            let index = position ?? slot
            guard index < values.count else { return }
            let value = values[index]
            if value.isToManyFault {
                if parent != nil {
                    if let object = self.object(for: ObjectRef(key: objectKey, entityID: layout.entityID)) { readThroughParent(object) }
                } else if let pk = objectKey.primaryKey {
                    owners[OwnersKey(r, objectKey), default: (r, [])].1.append(pk)
                }
            } else if r.isToMany {
                found.formUnion(value.objectRefs)
            } else if let ref = value.objectRef {
                found.insert(ref)
            }
        }
        func visit(_ object: NSManagedObject) {
            switch object.faultState {
            case .loaded: take(object.values, object.layout, object.objectID.key)
            case .holdingRow(let row, _): take(row, object.layout, object.objectID.key)
            case .rowGone: return
            case .fault, .inBatch:
                // A child context reads through its parent (which may have unsaved changes), one by one.
                if parent != nil { readThroughParent(object) } else { unregistered(object.objectID.key, object.layout) }
            }
        }
        func readThroughParent(_ object: NSManagedObject) {
            guard let slot = object.layout.slotByName[key], object.layout.relationship(slot) != nil else { return }
            take([object.value(at: slot)], object.layout, object.objectID.key, at: 0)
        }
        func unregistered(_ objectKey: ObjectKey, _ layout: EntityLayout) {
            if parent != nil {
                if let object = self.object(for: ObjectRef(key: objectKey, entityID: layout.entityID)) { readThroughParent(object) }
                return
            }
            guard let pk = objectKey.primaryKey, let slot = layout.slotByName[key], let r = layout.relationship(slot) else { return }
            if r.isToMany {
                owners[OwnersKey(r, objectKey), default: (r, [])].1.append(pk)
            } else {
                rowsToRead.append(objectKey)
            }
        }

        for node in nodes {
            switch node {
            case .object(let object): visit(object)
            case .row(let id, let values):
                if let object = registry[id.key] { visit(object) } else if let layout = id.entity.layout { take(values, layout, id.key) }
            case .ref(let ref):
                if let object = registry[ref.key] {
                    visit(object)
                } else if let layout = model.entity(number: ref.entityID)?.layout {
                    unregistered(ref.key, layout)
                }
            }
        }
        if !rowsToRead.isEmpty {
            for (objectKey, row) in try coordinator.loadRows(rowsToRead, in: try storeReadScope()) {
                guard let values = row.values, let layout = model.entity(number: row.entityID)?.layout else { continue }
                take(values, layout, objectKey)
            }
        }
        for (key, (r, pks)) in owners {
            for refs in try coordinator.loadRelationship(r, owners: pks, tag: key.tag, in: try storeReadScope()).values { found.formUnion(refs) }
        }
        return found.filter { model.entity(number: $0.entityID)?.isKindOf(entity: entity) ?? false }
    }

    /// The objects of `entity` whose relationship `forward` holds one of `refs`, by a fetch of their IDs
    /// (`forward IN %@`, `ANY forward IN %@` for a to-many): the way back through a relationship that
    /// has no inverse. The fetch includes this context's unsaved changes, as every fetch does. One query.
    func holders(of refs: Set<ObjectRef>, through forward: String, toMany: Bool, entity: NSEntityDescription) throws -> Set<ObjectRef> {
        guard !refs.isEmpty, let coordinator = persistentStoreCoordinator, let name = entity.name else { return [] }
        let targets: [Any] = try refs.compactMap { ref -> Any? in
            if let object = registry[ref.key] { return object }
            guard case .permanent(let root, _) = ref.key, let e = coordinator.managedObjectModel.entity(number: ref.entityID) else { return nil }
            return NSManagedObjectID(entity: e, key: ref.key, storeIdentifier: try coordinator.storeIdentifier(root: root))
        }
        let request = NSFetchRequest<NSManagedObjectID>(entityName: name)
        request.resultType = .managedObjectIDResultType
        request.predicate = NSPredicate(format: toMany ? "ANY %K IN %@" : "%K IN %@", forward, targets)
        return Set(try fetch(request).compactMap { id in id.entity.layout.map { ObjectRef(key: id.key, entityID: $0.entityID) } })
    }

    /// Managed objects for references, as this context sees them: the registered object, else one made
    /// for the row (registered now, holding the row, so that reading it runs no query) — the rows of all
    /// unregistered references are read together, in one query (or from the row cache). Returns the
    /// objects and those made now (the caller unregisters the ones it has no use for). A reference
    /// whose row is gone is left out.
    func objects(for refs: [ObjectRef]) throws -> (objects: [NSManagedObject], made: [NSManagedObject]) {
        var objects: [NSManagedObject] = []
        var missing: [ObjectKey] = []
        if parent != nil {
            // A child context: faults read through the parent (which may have unsaved changes).
            var made: [NSManagedObject] = []
            for ref in refs {
                let wasRegistered = registry[ref.key] != nil
                guard let object = object(for: ref) else { continue }
                objects.append(object)
                if !wasRegistered { made.append(object) }
            }
            return (objects, made)
        }
        for ref in refs {
            if let object = registry[ref.key] { objects.append(object) } else if ref.key.primaryKey != nil { missing.append(ref.key) }
        }
        guard !missing.isEmpty, let coordinator = persistentStoreCoordinator else { return (objects, []) }
        let sole = coordinator.soleStoreIdentifier
        let rows = try coordinator.loadRows(missing, in: try storeReadScope())
        var made: [NSManagedObject] = []
        for objectKey in missing {
            guard let row = rows[objectKey], let values = row.values,
                  let entity = coordinator.managedObjectModel.entity(number: row.entityID) else { continue }
            let identifier = try sole ?? coordinator.storeIdentifier(root: objectKey.keyRoot ?? entity.layout.rootEntityID)
            let id = NSManagedObjectID(entity: entity, key: objectKey, storeIdentifier: identifier)
            let (object, isNew) = objectForMergedRow(.init(id: id, values: values, version: row.version, changedSlots: []))
            objects.append(object)
            if isNew { made.append(object) }
        }
        return (objects, made)
    }
}

extension GraphNode {
    /// The reference to the node's object.
    var ref: ObjectRef {
        switch self {
        case .object(let object): return object.ref
        case .row(let id, _): return ObjectRef(key: id.key, entityID: id.entity.layout?.entityID ?? 0)
        case .ref(let ref): return ref
        }
    }
}

/// The owners of a to-many relationship read together: one relationship, in one store (by the store tag
/// in the owners' keys; overlapping configurations).
struct OwnersKey: Hashable {
    let relationship: ObjectIdentifier
    let tag: Int

    init(_ r: RelationshipLayout, _ owner: ObjectKey) {
        relationship = ObjectIdentifier(r)
        tag = owner.storeTag
    }
}

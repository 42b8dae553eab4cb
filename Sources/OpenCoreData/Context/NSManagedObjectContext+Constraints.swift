import Foundation

/// Uniqueness constraints at save (docs/Store.md, "Uniqueness constraints"): before anything is written,
/// the objects a save inserts or updates are checked against each other and against the store's rows;
/// the conflicts go to the merge policy's `resolve(constraintConflicts:)`, which fails the save
/// (`NSErrorMergePolicy`) or merges each conflicting inserted object into the object that keeps the
/// constrained values, before the ordinary save writes the outcome.
extension NSManagedObjectContext {
    /// What a context was before a constraint resolution changed its objects, to put back when the save
    /// fails after all.
    struct ConstraintRestorePoint {
        struct ObjectState {
            let object: NSManagedObject
            let values: [Value]
            let snapshot: [Value]?
            let version: Int64
            let lifecycle: Lifecycle
            let faultState: FaultState
            let context: NSManagedObjectContext?
        }
        let objects: [ObjectState]
        let registry: ObjectRegistry
        let touched: [ObjectIdentifier: NSManagedObject]
    }

    func constraintRestorePoint() -> ConstraintRestorePoint {
        var all: [ObjectIdentifier: NSManagedObject] = [:]
        for o in registry.values { all[ObjectIdentifier(o)] = o }
        for o in insertedObjects { all[ObjectIdentifier(o)] = o }
        for o in deletedObjects { all[ObjectIdentifier(o)] = o }
        return ConstraintRestorePoint(
            objects: all.values.map { .init(object: $0, values: $0.values, snapshot: $0.snapshot, version: $0.version,
                                            lifecycle: $0.lifecycle, faultState: $0.faultState, context: $0.managedObjectContext) },
            registry: registry, touched: touched)
    }

    func restore(_ point: ConstraintRestorePoint) {
        for s in point.objects {
            s.object.values = s.values
            s.object.snapshot = s.snapshot
            s.object.version = s.version
            s.object.faultState = s.faultState
            s.object.managedObjectContext = s.context
            setLifecycle(s.lifecycle, of: s.object)
        }
        registry = point.registry
        touched = point.touched
        // Inserted objects given a key since the restore point keep it: they stay registered under it.
        for object in inserted.objects {
            if let key = object.assignedKey, key.isTemporary, registry[key] == nil { registry[key] = object }
        }
    }

    /// The uniqueness constraint conflicts among `candidates` (the objects a save inserts or updates):
    /// groups of them with equal constrained values, and those whose values a stored row holds (a row
    /// that this save deletes, or whose object this save gives other values, does not count).
    func constraintConflicts(_ candidates: some Sequence<NSManagedObject>, deleted: [NSManagedObject]) throws -> [NSConstraintConflict] {
        // A model without constraints: no pass over the objects.
        if let model = persistentStoreCoordinator?.managedObjectModel, model.entities.allSatisfy({ $0.uniquenessConstraints.isEmpty }) {
            return []
        }
        var byConstraint: [(UniquenessConstraint, [NSManagedObject])] = []
        var seenEntities: [ObjectIdentifier: Int] = [:]
        var last: (entity: NSEntityDescription, constraints: [UniquenessConstraint])?  // objects come grouped by entity
        for object in candidates where !object.isFault {
            if last?.entity !== object.entity { last = (object.entity, UniquenessConstraint.applying(to: object.entity)) }
            for c in last!.constraints {
                let id = ObjectIdentifier(c.entity)
                let index: Int
                if let i = seenEntities[id].flatMap({ first in byConstraint[first...].firstIndex { ObjectIdentifier($0.0.entity) == id && $0.0.names == c.names } }) {
                    index = i
                } else {
                    if seenEntities[id] == nil { seenEntities[id] = byConstraint.count }
                    byConstraint.append((c, []))
                    index = byConstraint.count - 1
                }
                byConstraint[index].1.append(object)
            }
        }
        guard !byConstraint.isEmpty else { return [] }
        // Rows judged by their objects' pending state, not by the store: candidates and deleted objects.
        let pending = Set((candidates + deleted).compactMap(\.assignedKey))
        var conflicts: [NSConstraintConflict] = []
        for (constraint, objects) in byConstraint {
            var groups: [[Value]: [NSManagedObject]] = [:]
            var order: [[Value]] = []
            for object in objects {
                guard let key = constraint.key(object.values) else { continue }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(object)
            }
            for key in order {
                let group = groups[key]!
                // A saved object whose constrained values did not change cannot meet a stored row.
                let changed = group.contains { o in o.isInserted || constraint.slots.contains { o.snapshot?[$0] != o.values[$0] } }
                guard changed || group.count > 1 else { continue }
                let stored = changed ? try storedObjectID(constraint, key: key, excluding: pending) : nil
                guard stored != nil || group.count > 1 else { continue }
                let database = stored.map { object(with: $0) }
                try database?.fulfillFault()
                conflicts.append(NSConstraintConflict(constraint: constraint, key: key, database: database, conflicting: group, context: self))
            }
        }
        return conflicts
    }

    /// A stored row of the constraint's entity (or a subentity) holding `key`, other than the rows in
    /// `excluding`. Attribute values are compared in SQL (bound parameters); a constraint with a to-one
    /// is left to the unique index.
    private func storedObjectID(_ constraint: UniquenessConstraint, key: [Value], excluding: Set<ObjectKey>) throws -> NSManagedObjectID? {
        let layout = constraint.entity.layout!
        guard constraint.slots.allSatisfy({ layout.attribute($0) != nil }) else { return nil }
        let request = NSFetchRequest<NSManagedObjectID>(entityName: constraint.entity.name ?? "")
        request.resultType = .managedObjectIDResultType
        request.includesPendingChanges = false
        request.includesSubentities = true
        request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: zip(constraint.names, key).map { name, value in
            NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: name), rightExpression: NSExpression(forConstantValue: value.anyValue),
                                  modifier: .direct, type: .equalTo, options: [])
        })
        request.fetchLimit = excluding.isEmpty ? 1 : 0
        return try fetch(request).first { !excluding.contains($0.key) }
    }

    /// The resolution the standard merge policies give constraint conflicts (called by
    /// `NSMergePolicy.resolve(constraintConflicts:)`): in each conflict one object keeps the constrained
    /// values — the database object, or else the conflicting object inserted first (or the one that is
    /// already saved) — and every other conflicting object, which must be an inserted one, is merged into
    /// it and leaves the context. Attributes are merged by `type` (the survivor's values standing for the
    /// store's, the entity's defaults for what both started from); relationships are kept: the survivor
    /// takes the loser's to-many members and, where it has none or `type` favours the object, its to-ones.
    func mergeConstraintConflicts(_ list: [NSConstraintConflict], type: NSMergePolicyType) throws {
        for conflict in list {
            let objects = conflict.conflictingObjects.filter { $0.managedObjectContext === self && $0.lifecycle != .removed }
            var ordered = objects.filter { !$0.isInserted } + objects.filter(\.isInserted).sorted { $0.insertionIndex < $1.insertionIndex }
            let survivor: NSManagedObject
            if let database = conflict.databaseObject {
                survivor = database
                ordered.removeAll { $0 === database }
            } else {
                survivor = ordered.removeFirst()
            }
            if let saved = ordered.first(where: { !$0.isInserted }) {
                throw CoreDataError(NSManagedObjectConstraintMergeError,
                                    "Could not merge changes: \(saved.entity.name ?? "?") \(saved.objectID.uriRepresentation().lastPathComponent) and another saved object hold the same values of the uniqueness constraint (\(conflict.constraint.joined(separator: ", "))); only inserted objects can be merged into another.",
                                    userInfo: [NSPersistentStoreSaveConflictsErrorKey: list])
            }
            for loser in ordered { merge(loser, into: survivor, type: type) }
        }
    }

    private func merge(_ loser: NSManagedObject, into survivor: NSManagedObject, type: NSMergePolicyType) {
        let layout = loser.layout
        let survivorLayout = survivor.layout
        // Attributes (the ones both entities have, by name).
        let defaults = layout.defaultValues
        for slot in layout.persistentSlots where layout.attribute(slot) != nil && !(layout.attribute(slot) is NSDerivedAttributeDescription) {
            let name = layout.properties[slot].name
            guard let target = survivorLayout.slotByName[name] else { continue }
            let mine = loser.values[slot], theirs = survivor.values[target], base = defaults[slot]
            let merged = MergeArithmetic.merged(type, object: [mine], read: [base], store: [theirs], slots: [0])[0]
            if merged != theirs { survivor.setValue(loser.value(forKey: name), forKey: name) }
        }
        // Relationships: the loser's members and destinations go to the survivor (inverses follow).
        for slot in layout.relationshipSlots where !layout.properties[slot].isTransient {
            let name = layout.properties[slot].name
            guard survivorLayout.slotByName[name] != nil else { continue }
            switch layout.kinds[slot] {
            case .toMany(let r):
                let members = loser.value(forKey: name)
                let moving: [NSManagedObject]
                if let set = members as? Set<NSManagedObject> { moving = Array(set) }
                else if let ordered = members as? NSOrderedSet { moving = ordered.array.compactMap { $0 as? NSManagedObject } }
                else { moving = [] }
                guard !moving.isEmpty else { continue }
                if r.isOrdered {
                    let existing = (survivor.value(forKey: name) as? NSOrderedSet)?.array.compactMap { $0 as? NSManagedObject } ?? []
                    loser.setValue(NSOrderedSet(), forKey: name)
                    survivor.setValue(NSOrderedSet(array: existing + moving.filter { m in !existing.contains { $0 === m } }), forKey: name)
                } else {
                    let existing = (survivor.value(forKey: name) as? Set<NSManagedObject>) ?? []
                    loser.setValue(Set<NSManagedObject>(), forKey: name)
                    survivor.setValue(existing.union(moving), forKey: name)
                }
            case .toOne:
                guard let destination = loser.value(forKey: name) as? NSManagedObject else { continue }
                let keepsOwn = survivor.value(forKey: name) != nil
                    && (type == .mergeByPropertyStoreTrumpMergePolicyType || type == .rollbackMergePolicyType)
                loser.setValue(nil, forKey: name)
                if !keepsOwn { survivor.setValue(destination, forKey: name) }
            default:
                continue
            }
        }
        // The loser leaves the context, as a deleted insert does.
        registry[loser.objectID.key] = nil
        setLifecycle(.removed, of: loser)
        loser.managedObjectContext = nil
    }
}

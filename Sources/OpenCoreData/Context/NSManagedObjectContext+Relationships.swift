import Foundation

extension NSManagedObjectContext {
    /// The object a relationship slot names: the registered one, else a fault for a saved row (registered
    /// now); `nil` for an unsaved object this context (and its parents) no longer has. A caller making
    /// many passes the store's identifier.
    func object(for ref: ObjectRef, storeIdentifier: String? = nil) -> NSManagedObject? {
        if let object = registry[ref.key] { return object }
        let id: NSManagedObjectID
        if case .permanent(let root, _) = ref.key {
            guard let coordinator = persistentStoreCoordinator, let entity = coordinator.managedObjectModel.entity(number: ref.entityID),
                  let identifier = storeIdentifier ?? (try? coordinator.storeIdentifier(root: root)) else { return nil }
            id = NSManagedObjectID(entity: entity, key: ref.key, storeIdentifier: identifier)
        } else {
            // An object a parent inserted and has not saved: the child reads it from the parent.
            var ancestor = parent
            var found: NSManagedObjectID?
            while let context = ancestor, found == nil {
                found = context.performAndWait { context.registry[ref.key]?.objectID }
                ancestor = context.parent
            }
            guard let found else { return nil }
            id = found
        }
        let object = NSManagedObject.makeFetched(entity: id.entity, id: id, context: self)
        registry[ref.key] = object
        return object
    }

    /// The objects of a to-many relationship's references (each once), in order, as ``object(for:)``
    /// gives them: the faults made for saved rows are registered together, without looking their keys
    /// up when the context holds no object of their hierarchy (see ``ObjectRegistry/mayHold(root:)``).
    func objects(forMembers refs: [ObjectRef]) -> [NSManagedObject] {
        guard let first = refs.first, case .permanent(let root, _) = first.key, let coordinator = persistentStoreCoordinator,
              let identifier = coordinator.soleStoreIdentifier ?? (try? coordinator.storeIdentifier(root: root)) else {
            return refs.compactMap { object(for: $0) }
        }
        let model = coordinator.managedObjectModel
        let looksUp = registry.mayHold(root: root)
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(refs.count)
        var made: [NSManagedObject] = []
        for ref in refs {
            if looksUp, let object = registry[ref.key] {
                objects.append(object)
            } else if case .permanent(root, _) = ref.key, let entity = model.entity(number: ref.entityID) {
                let object = NSManagedObject.makeFetched(entity: entity, id: NSManagedObjectID(entity: entity, key: ref.key, storeIdentifier: identifier), context: self)
                made.append(object)
                objects.append(object)
            } else if let object = object(for: ref) {
                objects.append(object)
            }
        }
        registry.registerNew(made, root: root)
        return objects
    }

    /// Reads the objects of a to-many relationship that is still a fault: from the parent context, or
    /// from the store (one query). The value read becomes both the object's value and what it read.
    ///
    /// Beyond Core Data: an object of a batched fetch reads the relationship for the objects of its
    /// batch whose same fault has not fired yet, in the same one query (`IN` their keys), so that
    /// walking a batched result and reading a to-many of each costs one query per batch, not one per
    /// object (see docs/Relationships.md, "Prefetching and batches").
    /// Returns the slot's value read. A store error is thrown, the slot still a fault: a failed read is
    /// never an empty relationship.
    func readToMany(of object: NSManagedObject, slot: Int, fault: ToManyFault) throws -> Value {
        guard case .toMany(let r) = object.layout.kinds[slot] else { return object.values[slot] }
        if parent == nil, let chunk = fault.batch, chunk.range.count > 1, let coordinator = persistentStoreCoordinator {
            var owners: [NSManagedObject] = []
            var keys: [Int64] = []
            let batch = chunk.batch
            for i in chunk.range where i < batch.objects.count {
                let owner = batch.objects[i]
                guard owner.managedObjectContext === self, owner.storedValue(slot)?.isToManyFault == true else { continue }
                owners.append(owner)
                keys.append(batch.primaryKey(i))
            }
            if owners.count > 1 {
                let members = try coordinator.loadRelationship(r, owners: keys, tag: ObjectKey.tag(batch.root), in: try storeReadScope())
                for (owner, pk) in zip(owners, keys) { owner.fillToMany(slot, Self.toManyValue(members[pk] ?? [], r)) }
                let filled = object.values[slot]
                if !filled.isToManyFault { return filled }
            }
        }
        var refs: [ObjectRef] = []
        if let parent {
            let id = object.objectID
            refs = try parent.performAndWait {
                // A row the parent does not have is gone: it relates to nothing.
                guard let source = try parent.registeredObject(for: id) ?? parent.existingObjectUnlessGone(with: id) else { return [] }
                if source.isFault { try source.fulfillFault() }
                return try source.loadedToManyOrThrow(slot).objectRefs
            }
        } else if let pk = object.objectKey.primaryKey, let coordinator = persistentStoreCoordinator {
            refs = try coordinator.loadRelationship(r, owner: pk, tag: object.objectKey.storeTag, in: try storeReadScope())
        }
        let value = Self.toManyValue(refs, r)
        object.fillToManyFault(slot, value)
        return value
    }

    /// A to-many slot's value for the references a store read (each once).
    static func toManyValue(_ refs: [ObjectRef], _ r: RelationshipLayout) -> Value {
        ToManyMembers(refs, ordered: r.isOrdered).value
    }

    /// Marks the to-many faults of objects a batch just loaded with their batch, so that firing one
    /// reads that relationship for the whole batch (see ``readToMany(of:slot:)``).
    func markBatch(_ chunk: BatchChunk, of objects: [NSManagedObject]) {
        guard chunk.range.count > 1 else { return }
        var marked: Value?
        for object in objects where object.faultState.isLoaded {
            var marks = false
            for slot in object.layout.relationshipSlots where object.values[slot].isToManyFault {
                if marked == nil { marked = .object(AnyHashable(ToManyFault(batch: chunk))) }
                object.values[slot] = marked!
                marks = true
            }
            // Just loaded: what it read is its values, marks included (one copy of the row, not two).
            if marks { object.snapshot = object.values }
        }
    }

    /// After a merge: objects whose unsaved relationship changes were kept over the saved values. Their
    /// registered destinations took the saved values of the inverse; they follow the kept changes again,
    /// so both sides agree (the local change wins in memory, as it does for the object itself).
    func reapplyKeptRelationshipChanges(_ objects: [NSManagedObject]) {
        for object in objects where !object.isFault && !object.layout.relationshipSlots.isEmpty {
            guard let snapshot = object.snapshot else { continue }
            let me = object.ref
            for slot in object.layout.relationshipSlots {
                guard let r = object.layout.relationship(slot), let inverse = r.inverseSlot,
                      object.values[slot] != snapshot[slot], !object.values[slot].isToManyFault, !snapshot[slot].isToManyFault else { continue }
                let inverseIsToMany = r.relationship.inverseRelationship?.isToMany ?? false
                func refs(_ v: Value) -> Set<ObjectRef> { Set(r.isToMany ? v.objectRefs : v.objectRef.map { [$0] } ?? []) }
                let kept = refs(object.values[slot]), saved = refs(snapshot[slot])
                for ref in saved.subtracting(kept) {
                    guard let destination = registry[ref.key] else { continue }
                    if inverseIsToMany { destination.rawRemove(inverse, me) } else if destination.value(at: inverse).objectRef == me { destination.rawSetToOne(inverse, nil) }
                }
                for ref in kept.subtracting(saved) {
                    guard let destination = registry[ref.key] else { continue }
                    if inverseIsToMany { destination.rawInsert(inverse, me) } else { destination.rawSetToOne(inverse, me) }
                }
            }
        }
    }

    // MARK: - Delete rules

    /// Applies the delete rules of objects deleted since the last call: nullify removes each from its
    /// destinations' inverses, cascade deletes the destinations (each once), deny and no action do
    /// nothing here (deny is checked by `save()`). Called by `processPendingChanges()`.
    ///
    /// The deleted objects are taken a generation at a time (those deleted since the last call, then those
    /// their cascades deleted, …), and the to-many relationships a generation's rules follow are read for
    /// the whole generation first, one query per relationship rather than one per object
    /// (``readToManys(of:keys:)``); a relationship that read fails is read again object by object.
    func propagateDeletes() {
        // Each deleted object is listed once (a second delete of a deleted object does nothing). The set
        // lives for this call only: an identifier may be reused once its object is gone.
        var propagated = Set<ObjectIdentifier>()
        while !deletesToPropagate.isEmpty {
            let generation = deletesToPropagate.filter { propagated.insert(ObjectIdentifier($0)).inserted }
            deletesToPropagate.removeAll()
            if generation.count > 1 { try? readToManys(of: generation, keys: Self.toManysFollowedOnDelete(of: generation)) }
            for object in generation { applyDeleteRules(of: object) }
        }
    }

    /// The names of the to-many relationships whose delete rule (nullify or cascade) deleting `objects` follows.
    private static func toManysFollowedOnDelete(of objects: [NSManagedObject]) -> Set<String> {
        var names = Set<String>()
        var seen = Set<ObjectIdentifier>()
        for object in objects where seen.insert(ObjectIdentifier(object.layout)).inserted {
            for slot in object.layout.relationshipSlots {
                guard let r = object.layout.relationship(slot), r.isToMany,
                      r.relationship.deleteRule == .nullifyDeleteRule || r.relationship.deleteRule == .cascadeDeleteRule else { continue }
                names.insert(object.layout.properties[slot].name)
            }
        }
        return names
    }

    /// One deleted object's nullify and cascade rules; a cascade's deletes join ``deletesToPropagate``.
    private func applyDeleteRules(of object: NSManagedObject) {
        let me = object.ref
        for slot in object.layout.relationshipSlots {
            guard let r = object.layout.relationship(slot) else { continue }
            let rule = r.relationship.deleteRule
            guard rule == .nullifyDeleteRule || rule == .cascadeDeleteRule else { continue }
            let destinations = r.isToMany ? object.relatedObjects(slot) : object.value(at: slot).objectRef.flatMap { self.object(for: $0) }.map { [$0] } ?? []
            for destination in destinations {
                if let inverse = r.inverseSlot, destination.managedObjectContext === self, !destination.isDeleted || rule == .nullifyDeleteRule {
                    if r.relationship.inverseRelationship?.isToMany ?? false {
                        destination.rawRemove(inverse, me)
                    } else if destination.value(at: inverse).objectRef == me {
                        destination.rawSetToOne(inverse, nil)
                    }
                }
                if rule == .cascadeDeleteRule, !destination.isDeleted, destination.managedObjectContext === self {
                    delete(destination)
                }
            }
        }
    }

    /// The deny-rule relationships of a deleted object that still hold objects: Core Data's
    /// `NSValidationRelationshipDeniedDeleteError`, one per relationship. Throws the store's error when
    /// a relationship that is still a fault cannot be read.
    static func deniedDeleteErrors(_ object: NSManagedObject) throws -> [CoreDataError] {
        var errors: [CoreDataError] = []
        for slot in object.layout.relationshipSlots {
            guard let r = object.layout.relationship(slot), r.relationship.deleteRule == .denyDeleteRule else { continue }
            let holds = r.isToMany ? try object.loadedToManyOrThrow(slot).referenceCount > 0 : object.value(at: slot).objectRef != nil
            guard holds else { continue }
            let name = object.layout.properties[slot].name
            errors.append(CoreDataError(NSValidationRelationshipDeniedDeleteError,
                                        "\(object.entity.name ?? "?").\(name): the object cannot be deleted while its relationship \(name) (delete rule: deny) is not empty.",
                                        userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: name]))
        }
        return errors
    }

    /// Relationship rules checked at save: a required to-one is set; a to-many read into memory holds
    /// at least `minCount` and at most `maxCount` objects (an optional one may also be empty). As in Core
    /// Data, a required to-many with no minimum count may be empty: counts are `minCount`'s to enforce.
    static func relationshipErrors(_ object: NSManagedObject) -> [CoreDataError] {
        var errors: [CoreDataError] = []
        let entityName = object.entity.name ?? "?"
        for slot in object.layout.relationshipSlots where object.layout.persistentSlotSet.contains(slot) {
            let r = object.layout.relationship(slot)!, d = r.relationship, name = d.name
            let info: [String: Any] = [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: name]
            guard r.isToMany else {
                if !d.isOptional, object.values[slot].isNull {
                    errors.append(CoreDataError(NSValidationMissingMandatoryPropertyError, "\(entityName).\(name) is a required value.", userInfo: info))
                }
                continue
            }
            guard !object.values[slot].isToManyFault else { continue }
            let count = object.values[slot].referenceCount
            let minimum = d.minCount
            if count < minimum, !(d.isOptional && count == 0) {
                errors.append(CoreDataError(NSValidationRelationshipLacksMinimumCountError,
                                            "\(entityName).\(name) has \(count) object\(count == 1 ? "" : "s"), fewer than its minimum count \(minimum).", userInfo: info))
            } else if d.maxCount > 0, count > d.maxCount {
                errors.append(CoreDataError(NSValidationRelationshipExceedsMaximumCountError,
                                            "\(entityName).\(name) has \(count) objects, more than its maximum count \(d.maxCount).", userInfo: info))
            }
        }
        return errors
    }
}

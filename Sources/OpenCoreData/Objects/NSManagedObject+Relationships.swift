import Foundation

extension NSManagedObject {
    /// The reference relationship slots hold for this object.
    var ref: ObjectRef { ObjectRef(key: objectID.key, entityID: layout.entityID) }

    /// A to-many slot's value with its objects read (one query the first time, or none for an object
    /// not saved yet). When the store fails the process stops with its error and the object's ID, as
    /// Core Data raises (see ``loadedToManyOrThrow(_:)``).
    func loadedToMany(_ slot: Int) -> Value {
        do { return try loadedToManyOrThrow(slot) } catch {
            NSManagedObjectContext.storeReadFailed(error, reading: "\(layout.properties[slot].name) of", objectID)
        }
    }

    /// ``loadedToMany(_:)`` for a caller that throws: the store's error is thrown, the slot still a fault.
    func loadedToManyOrThrow(_ slot: Int) throws -> Value {
        if isFault { try fulfillFault() }
        let value = values[slot]
        guard let fault = value.slotContent(ToManyFault.self), let context = managedObjectContext else { return value }
        return try context.readToMany(of: self, slot: slot, fault: fault)
    }

    /// Puts what a loaded object's to-many slot holds once its fault is read: in the values, and in what
    /// the object read when that still holds the fault. Values unchanged since they were read share
    /// their storage with what was read, and still do after.
    func fillToManyFault(_ slot: Int, _ value: Value) {
        if valuesAreSnapshot() {
            snapshot = nil
            values[slot] = value
            snapshot = values
            return
        }
        values[slot] = value
        if snapshotHoldsToManyFault(slot) { snapshot![slot] = value }
    }

    /// Whether the values are the very array the object read (not a copy of it), so unchanged.
    private func valuesAreSnapshot() -> Bool {
        guard let snapshot, !snapshot.isEmpty else { return false }
        return values.withUnsafeBufferPointer { v in snapshot.withUnsafeBufferPointer { $0.baseAddress == v.baseAddress } }
    }

    /// Whether what the object read holds a fault in a to-many slot (which holds `.object` only then).
    private func snapshotHoldsToManyFault(_ slot: Int) -> Bool {
        guard let snapshot, slot < snapshot.count, case .object = snapshot[slot] else { return false }
        return true
    }

    /// What `value(forKey:)` returns for a relationship: the destination object (a fault when its row
    /// was not read) or nil for a to-one; an `NSSet` (`NSOrderedSet` when ordered) for a to-many.
    func relationshipValue(_ slot: Int, _ r: RelationshipLayout) -> Any? {
        guard r.isToMany else {
            return value(at: slot).objectRef.flatMap { managedObjectContext?.object(for: $0) }
        }
        return Self.collection(relatedObjects(slot), ordered: r.isOrdered)
    }

    /// A to-many relationship's objects as key-value coding hands them out: an `NSSet`, an
    /// `NSOrderedSet` when ordered.
    static func collection(_ objects: [NSManagedObject], ordered: Bool) -> NSObject {
        ordered ? orderedObjectSet(objects) : objectSet(objects)
    }

    /// An `NSSet` of objects, made from their references as they are (no `Any` for each).
    static func objectSet(_ objects: [NSManagedObject]) -> NSSet {
        withReferences(objects) { NSSet(objects: $0.baseAddress, count: $0.count) }
    }

    /// An `NSOrderedSet` of objects, made from their references as they are.
    static func orderedObjectSet(_ objects: [NSManagedObject]) -> NSOrderedSet {
        withReferences(objects) { NSOrderedSet(objects: $0.baseAddress, count: $0.count) }
    }

    private static func withReferences<T>(_ objects: [NSManagedObject], _ body: (UnsafeBufferPointer<AnyObject>) -> T) -> T {
        objects.withUnsafeBufferPointer { $0.withMemoryRebound(to: AnyObject.self, body) }
    }

    /// The objects of a to-many slot, in order.
    func relatedObjects(_ slot: Int) -> [NSManagedObject] {
        let refs = loadedToMany(slot).objectRefs
        guard let context = managedObjectContext else { return [] }
        return context.objects(forMembers: refs)
    }

    /// `setValue(_:forKey:)` of a relationship: a to-one takes an object or nil, a to-many a set,
    /// ordered set or array of objects, replacing its contents. Inverses follow at once.
    func setRelationship(_ slot: Int, _ r: RelationshipLayout, to value: Any?) {
        let key = layout.properties[slot].name
        guard r.isToMany else {
            let unwrapped = value.flatMap(flattenOptional)
            if unwrapped == nil || unwrapped is NSNull { return setToOne(slot, r, to: nil) }
            guard let object = unwrapped as? NSManagedObject else {
                fatalError("Unacceptable type of value for to-one relationship: property = \"\(key)\"; desired type = \(r.destination.name ?? "?"); given type = \(type(of: unwrapped!)); value = \(unwrapped!).")
            }
            return setToOne(slot, r, to: object)
        }
        let objects = Self.objects(in: value, forKey: key, r)
        let current = relatedObjects(slot)
        let keep = Set(objects.map { ObjectIdentifier($0) })
        removeFromToMany(slot, r, current.filter { !keep.contains(ObjectIdentifier($0)) })
        if r.isOrdered {
            replaceOrdered(slot, r, with: objects)
        } else {
            addToMany(slot, r, objects)
        }
    }

    /// The objects of a value given for a to-many relationship; anything else traps as Core Data raises.
    static func objects(in value: Any?, forKey key: String, _ r: RelationshipLayout) -> [NSManagedObject] {
        guard let value = value.flatMap(flattenOptional), !(value is NSNull) else { return [] }
        guard let elements = toManyElements(value) else {
            fatalError("Unacceptable type of value for to-many relationship: property = \"\(key)\"; desired type = NSSet; given type = \(type(of: value)); value = \(value).")
        }
        return elements.map { element in
            guard let object = element as? NSManagedObject else {
                fatalError("Unacceptable type of value for to-many relationship: property = \"\(key)\"; desired type = \(r.destination.name ?? "?"); given type = \(type(of: element)); value = \(element).")
            }
            return object
        }
    }

    /// The members of a to-many value (a set, ordered set or array, Foundation's or Swift's, of objects,
    /// object IDs or cache nodes); `nil` for anything else.
    static func toManyElements(_ value: Any) -> [Any]? {
        switch value {
        case let s as NSOrderedSet: return s.array
        case let s as NSSet: return s.allObjects
        case let a as [Any]: return a
        case let s as Set<NSManagedObject>: return Array(s)
        case let s as Set<AnyHashable>: return s.map(\.base)
        case let a as NSArray: return a.map { $0 }
        default: return nil
        }
    }

    /// Traps, as Core Data raises, for an object of the wrong entity or of another context.
    func checkDestination(_ object: NSManagedObject, _ slot: Int, _ r: RelationshipLayout) {
        let key = layout.properties[slot].name
        guard object.entity.isKindOf(entity: r.destination) else {
            fatalError("Unacceptable type of value for \(r.isToMany ? "to-many" : "to-one") relationship: property = \"\(key)\"; desired type = \(r.destination.name ?? "?"); given type = \(object.entity.name ?? "?"); value = \(object.objectID.uriRepresentation().absoluteString).")
        }
        guard object.managedObjectContext === managedObjectContext else {
            fatalError("Illegal attempt to establish a relationship '\(key)' between objects in different contexts (source = \(objectID.uriRepresentation().absoluteString), destination = \(object.objectID.uriRepresentation().absoluteString))")
        }
    }

    // MARK: - Keeping inverses

    /// Sets a to-one relationship; the old destination's inverse loses this object, the new one's gains it.
    func setToOne(_ slot: Int, _ r: RelationshipLayout, to new: NSManagedObject?) {
        if let new { checkDestination(new, slot, r) }
        let oldRef = value(at: slot).objectRef
        let newRef = new?.ref
        guard oldRef != newRef else { return }
        rawSetToOne(slot, newRef)
        guard let inverse = r.inverseSlot, let context = managedObjectContext else { return }
        let me = ref
        let inverseIsToMany = r.relationship.inverseRelationship?.isToMany ?? false
        if let oldRef, let old = context.object(for: oldRef) {
            if inverseIsToMany { old.rawRemove(inverse, me) } else if old.value(at: inverse).objectRef == me { old.rawSetToOne(inverse, nil) }
        }
        guard let new else { return }
        if inverseIsToMany {
            new.rawInsert(inverse, me)
        } else {
            // One-to-one: the new destination's previous partner lets go of it.
            if let previous = new.value(at: inverse).objectRef, previous != me, let partner = context.object(for: previous) {
                partner.rawSetToOne(slot, nil)
            }
            new.rawSetToOne(inverse, me)
        }
    }

    /// Adds objects to a to-many relationship (at the end when ordered), keeping inverses.
    func addToMany(_ slot: Int, _ r: RelationshipLayout, _ objects: [NSManagedObject], at index: Int? = nil) {
        var position = index
        for object in objects {
            checkDestination(object, slot, r)
            guard rawInsert(slot, object.ref, at: position) else { continue }
            if position != nil { position! += 1 }
            linkInverse(of: object, slot, r)
        }
    }

    /// The inverse side of adding `object` to this object's to-many slot.
    private func linkInverse(of object: NSManagedObject, _ slot: Int, _ r: RelationshipLayout) {
        guard let inverse = r.inverseSlot else { return }
        let me = ref
        if r.relationship.inverseRelationship?.isToMany ?? false {
            object.rawInsert(inverse, me)
            return
        }
        // The object moves here from its previous owner.
        let previous = object.value(at: inverse).objectRef
        guard previous != me else { return }
        if let previous, let owner = managedObjectContext?.object(for: previous) { owner.rawRemove(slot, object.ref) }
        object.rawSetToOne(inverse, me)
    }

    /// Removes objects from a to-many relationship, keeping inverses.
    func removeFromToMany(_ slot: Int, _ r: RelationshipLayout, _ objects: [NSManagedObject]) {
        let me = ref
        for object in objects {
            guard rawRemove(slot, object.ref) else { continue }
            guard let inverse = r.inverseSlot else { continue }
            if r.relationship.inverseRelationship?.isToMany ?? false {
                object.rawRemove(inverse, me)
            } else if object.value(at: inverse).objectRef == me {
                object.rawSetToOne(inverse, nil)
            }
        }
    }

    /// Replaces an ordered to-many's objects with `objects`, in that order, keeping inverses.
    func replaceOrdered(_ slot: Int, _ r: RelationshipLayout, with objects: [NSManagedObject]) {
        for object in objects { checkDestination(object, slot, r) }
        let before = Set(loadedToMany(slot).objectRefs)
        var seen = Set<ObjectRef>()
        let ordered = objects.filter { seen.insert($0.ref).inserted }
        let new = ToManyMembers(ordered.map(\.ref), ordered: true).value
        if values[slot] != new {
            noteUndoableChange(slot)
            values[slot] = new
            managedObjectContext?.objectDidChange(self, slot: slot)
        }
        for object in ordered where !before.contains(object.ref) { linkInverse(of: object, slot, r) }
    }

    // MARK: - Raw changes (one side only)

    /// Sets a to-one slot without touching the inverse.
    func rawSetToOne(_ slot: Int, _ ref: ObjectRef?) {
        if isFault { fireFault() }
        let new = ref?.value ?? .null
        guard values[slot] != new else { return }
        noteUndoableChange(slot)
        values[slot] = new
        managedObjectContext?.objectDidChange(self, slot: slot)
    }

    /// Adds a reference to a to-many slot without touching the inverse; false if it was there.
    @discardableResult
    func rawInsert(_ slot: Int, _ ref: ObjectRef, at index: Int? = nil) -> Bool {
        _ = loadedToMany(slot)
        noteUndoableChange(slot)
        guard values[slot].insertReference(ref, at: index) else { return false }
        managedObjectContext?.objectDidChange(self, slot: slot)
        return true
    }

    /// Removes a reference from a to-many slot without touching the inverse; false if it was not there.
    @discardableResult
    func rawRemove(_ slot: Int, _ ref: ObjectRef) -> Bool {
        _ = loadedToMany(slot)
        noteUndoableChange(slot)
        guard values[slot].removeReference(ref) else { return false }
        managedObjectContext?.objectDidChange(self, slot: slot)
        return true
    }

    /// Mirrors `hasFault(forRelationshipNamed:)`: whether reading the relationship would read the store
    /// (its destination is a fault, or a to-many was not read yet).
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let slot = layout.slotByName[key], let r = layout.relationship(slot) else {
            fatalError("[<\(entity.name ?? "?")> hasFaultForRelationshipNamed:]: \"\(key)\" is not a relationship of the entity \(entity.name ?? "?").")
        }
        if isFault { return true }
        if r.isToMany { return values[slot].isToManyFault }
        guard let ref = values[slot].objectRef else { return false }
        return managedObjectContext?.registry[ref.key]?.isFault ?? true
    }

    /// Mirrors `objectIDs(forRelationshipNamed:)`: the IDs of the relationship's destination objects,
    /// without firing their faults (a to-many not read yet is read: one query).
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        guard let slot = layout.slotByName[key], let r = layout.relationship(slot) else {
            fatalError("[<\(entity.name ?? "?")> objectIDsForRelationshipNamed:]: \"\(key)\" is not a relationship of the entity \(entity.name ?? "?").")
        }
        let refs = r.isToMany ? loadedToMany(slot).objectRefs : value(at: slot).objectRef.map { [$0] } ?? []
        return refs.compactMap { managedObjectContext?.object(for: $0)?.objectID }
    }

    // MARK: - Proxies

    /// Mirrors `mutableSetValue(forKey:)`: a live set of a to-many relationship's objects; adding and
    /// removing through it changes the relationship (and its inverse). Traps for a key that is not a
    /// to-many relationship, as Core Data raises.
    public func mutableSetValue(forKey key: String) -> NSMutableSet {
        checkQueue("mutableSetValue(forKey:)")
        let (slot, r) = toManySlot(forKey: key)
        return RelationshipMutableSet(owner: self, slot: slot, relationship: r)
    }

    /// Mirrors `mutableOrderedSetValue(forKey:)`: a live ordered set of an ordered to-many's objects.
    public func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        checkQueue("mutableOrderedSetValue(forKey:)")
        let (slot, r) = toManySlot(forKey: key)
        return RelationshipMutableOrderedSet(owner: self, slot: slot, relationship: r)
    }

    private func toManySlot(forKey key: String) -> (Int, RelationshipLayout) {
        guard let slot = layout.slotByName[key], case .toMany(let r) = layout.kinds[slot] else {
            fatalError("[<\(entity.name ?? "?")> mutableSetValueForKey:]: the key \"\(key)\" is not a to-many relationship of the entity \(entity.name ?? "?").")
        }
        return (slot, r)
    }
}

extension Value {
    /// Inserts into a loaded to-many slot (at `index` when ordered, at the end when nil) if absent,
    /// without copying its members; false if it was there.
    mutating func insertReference(_ ref: ObjectRef, at index: Int?) -> Bool {
        changeMembers { $0.insert(ref, at: index) } ?? false
    }

    /// Removes from a loaded to-many slot without copying its members; false if it was not there.
    mutating func removeReference(_ ref: ObjectRef) -> Bool {
        changeMembers { $0.remove(ref.key) } ?? false
    }
}

import Foundation

// Core Data's key-value hooks of a managed object: the access and change notifications custom accessors
// wrap their primitive reads and writes in, the subscript, observation info and per-key validation.
// Linux has no key-value observing: the notifications do what Core Data itself needs of them (fire
// faults, record changes in the context, keep inverses of to-many mutations), and notify nobody else.
extension NSManagedObject {
    /// What ``willChangeValue(forKey:)`` does: keeps the key's value until ``didChangeValue(forKey:)``.
    func noteWillChange(_ key: String) {
        guard let slot = layout.slotByName[key] else { return }
        if isFault { fireFault() }
        extras.changing.append((key, slot < values.count ? values[slot] : .null))
        // A composite: its elements' values, each compared when the change is recorded.
        if !layout.composites.isEmpty, let composite = layout.composite(atSlot: slot) {
            for leaf in composite.tree.leafSlots { extras.changing.append((layout.properties[leaf].name, values[leaf])) }
        }
    }

    /// What ``didChangeValue(forKey:)`` does: records the change unless the value is the one
    /// ``noteWillChange(_:)`` kept.
    func recordDidChange(_ key: String) {
        guard let slot = layout.slotByName[key] else { return unmodeledValueDidChange() }
        if !layout.composites.isEmpty, let composite = layout.composite(atSlot: slot) {
            for leaf in composite.tree.leafSlots { recordDidChange(layout.properties[leaf].name) }
        }
        var before: Value?
        if let extras = existingExtras, let i = extras.changing.lastIndex(where: { $0.key == key }) {
            before = extras.changing.remove(at: i).value
        }
        guard !isFault, slot < values.count else { return }
        if let before, before.isIdentical(to: values[slot]) { return }
        managedObjectContext?.objectDidChange(self, slot: slot)
    }

    /// What ``didChangeValue(forKey:withSetMutation:using:)`` does before recording the change: the
    /// to-many relationship `key` ends as the mutation makes it, inverses following.
    func applySetMutation(_ key: String, _ mutationKind: NSKeyValueSetMutationKind, _ objects: Set<AnyHashable>) {
        if let slot = layout.slotByName[key], case .toMany(let r) = layout.kinds[slot] {
            let current = relatedObjects(slot)
            let given = objects.compactMap { $0.base as? NSManagedObject }
            let target = Self.mutated(current, mutationKind, given)
            if target.map(ObjectIdentifier.init) != current.map(ObjectIdentifier.init) { setRelationship(slot, r, to: target) }
        }
    }

    /// `objects` after a set mutation with `given`, in their order (new ones last).
    private static func mutated(_ objects: [NSManagedObject], _ kind: NSKeyValueSetMutationKind, _ given: [NSManagedObject]) -> [NSManagedObject] {
        let givenIDs = Set(given.map(ObjectIdentifier.init))
        let currentIDs = Set(objects.map(ObjectIdentifier.init))
        switch kind {
        case .union: return objects + given.filter { !currentIDs.contains(ObjectIdentifier($0)) }
        case .minus: return objects.filter { !givenIDs.contains(ObjectIdentifier($0)) }
        case .intersect: return objects.filter { givenIDs.contains(ObjectIdentifier($0)) }
        case .set: return objects.filter { givenIDs.contains(ObjectIdentifier($0)) } + given.filter { !currentIDs.contains(ObjectIdentifier($0)) }
        }
    }

    /// A change of a key the entity does not model: the object becomes updated when its class does not
    /// ignore such changes.
    private func unmodeledValueDidChange() {
        guard !Self.contextShouldIgnoreUnmodeledPropertyChanges, let context = managedObjectContext,
              isSavedAndRegistered, !isFault else { return }
        extras.changedUnmodeled = true
        context.objectDidChangeUnmodeledValue(self)
    }

    /// What ``setPrimitiveValue(_:forKey:)`` does.
    func setPrimitive(_ value: Any?, forKey key: String) {
        checkQueue("setPrimitiveValue(_:forKey:)")
        let slot: Int
        do { slot = try self.slot(forKey: key) } catch { fatalError("\(error)") }
        if let r = layout.relationship(slot) { return setRelationship(slot, r, to: value) }
        let raw: Value
        switch layout.kinds[slot].attributeType {
        case .transformableAttributeType: raw = TransformableValue.slotValue(value)
        case .compositeAttributeType:
            do { return try setComposite(slot, value, primitive: true) } catch { fatalError("\(error)") }
        default: raw = Value(any: value)
        }
        setPrimitiveAttribute(slot, raw)
    }

    /// Sets an attribute's slot as ``setAttribute(_:_:)`` does (converted to the attribute's type), without
    /// recording a change: the primitive setters (``setPrimitiveValue(_:forKey:)``, a `@Managed var
    /// primitiveName`).
    func setPrimitiveAttribute(_ slot: Int, _ raw: Value) {
        if isFault { fireFault() }
        let type = layout.kinds[slot].attributeType
        values[slot] = type.map { $0.holdsOwnRepresentation(raw) ? raw : $0.coerce(raw) ?? raw } ?? raw
    }

    /// Mirrors `subscript(key:)`: ``value(forKey:)`` and ``setValue(_:forKey:)``.
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    /// Mirrors `observationInfo()`: what ``setObservationInfo(_:)`` stored (Linux has no key-value
    /// observing to keep anything there itself).
    public func observationInfo() -> UnsafeMutableRawPointer? {
        existingExtras?.observationInfo
    }

    /// Mirrors `setObservationInfo(_:)`: stores the pointer for ``observationInfo()``; the object does not
    /// own what it points to.
    public func setObservationInfo(_ inObservationInfo: UnsafeMutableRawPointer?) {
        extras.observationInfo = inObservationInfo
    }

    /// Mirrors `changedValues()`: the keys whose values differ from the saved ones (all set values of
    /// an inserted object), with their new values.
    public func changedValues() -> [String: Any] {
        guard !isFault else { return [:] }
        var result: [String: Any] = [:]
        for slot in layout.persistentSlots where !values[slot].isToManyFault {
            let changed = snapshot.map { $0[slot] != values[slot] } ?? !values[slot].isNullOrEmpty
            if changed { result[layout.properties[slot].name] = objectValue(slot, values[slot]) }
        }
        if !layout.composites.isEmpty { foldComposites(&result, values) }
        return result
    }

    /// Mirrors `committedValues(forKeys:)`: the saved values (`NSNull` for nil), for all keys when `nil`.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        if isFault { fireFault() }
        guard let snapshot else { return [:] }
        var slots = keys.map { $0.compactMap { layout.slotByName[$0] } } ?? layout.persistentSlots
        if !layout.composites.isEmpty { slots = slots.flatMap { layout.composite(atSlot: $0)?.tree.leafSlots ?? [$0] } }
        var result: [String: Any] = [:]
        for slot in slots where layout.persistentSlotSet.contains(slot) {
            let value = layout.kinds[slot].relationship?.isToMany == true && snapshot[slot].isToManyFault ? loadedToMany(slot) : snapshot[slot]
            result[layout.properties[slot].name] = objectValue(slot, value)
        }
        if !layout.composites.isEmpty { foldComposites(&result, snapshot) }
        return result
    }

    /// Mirrors `changedValuesForCurrentEvent()`: the persistent properties changed since the context last
    /// posted `ObjectsDidChange` (its `processPendingChanges()`), with their new values; for an object
    /// inserted since, every value it was given (as ``changedValues()``).
    public func changedValuesForCurrentEvent() -> [String: Any] {
        guard let context = managedObjectContext, !isFault else { return [:] }
        if insertIsUnannounced { return changedValues() }
        guard let slots = context.unprocessed.updated[ObjectIdentifier(self)]?.slots else { return [:] }
        var result: [String: Any] = [:]
        for slot in slots.sorted() where layout.persistentSlotSet.contains(slot) && !values[slot].isToManyFault {
            result[layout.properties[slot].name] = objectValue(slot, values[slot])
        }
        if !layout.composites.isEmpty { foldComposites(&result, values) }
        return result
    }
}

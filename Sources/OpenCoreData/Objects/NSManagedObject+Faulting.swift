import Foundation

// Turning objects into faults and back: the state Core Data reports while it happens, the hooks around
// it, and the snapshot events that reset an object's values.
extension NSManagedObject {
    /// What ``faultingState`` reports: 0 for a realized object at rest, 1 for a fault, 2 while the object
    /// turns into a fault (inside ``willTurnIntoFault()`` and ``didTurnIntoFault()``).
    var currentFaultingState: Int {
        if let transition = existingExtras?.transition, transition != 0 { return transition }
        return isFault ? 1 : 0
    }

    /// Turns a realized object into a fault by `forget` (which drops its values), calling
    /// ``willTurnIntoFault()`` before and ``didTurnIntoFault()`` after, as Core Data does; an object that
    /// is a fault already just runs `forget`.
    func turnIntoFault(_ forget: () -> Void) {
        guard !isFault else { return forget() }
        let extras = self.extras
        extras.transition = 2
        willTurnIntoFault()
        forget()
        didTurnIntoFault()
        extras.transition = 0
    }

    /// Tells the object that its values were reset from a snapshot: the entry point for the context's
    /// rollback, refresh and merge-policy resolution, and for undo (`.undoInsertion`, `.undoDeletion`,
    /// `.undoUpdate`), which calls it on each object an undo or redo changed, after the values are back.
    func snapshotEventsDidApply(_ events: NSSnapshotEventType) {
        guard !isFault, managedObjectContext != nil else { return }
        awake(fromSnapshotEvents: events)
    }

    /// What ``validateValue(_:forKey:)`` does: the model's rules for `key` applied to the value (coerced
    /// first to the attribute's type, and handed back so), as ``validateForUpdate()`` applies them at save.
    func validateModelRules(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        let slot = try self.slot(forKey: key)
        let given: Any? = value.pointee
        let entityName = entity.name ?? "?"
        switch layout.kinds[slot] {
        case .attribute(.compositeAttributeType):
            // The object's values with the given composite's in its elements' slots.
            guard let composite = layout.composite(atSlot: slot) else { return }
            if isFault { try fulfillFault() }
            var values = self.values
            for (leaf, element) in try composite.tree.leafValues(of: given, keyPath: key) {
                let raw = Value(any: element), type = layout.kinds[leaf].attributeType
                values[leaf] = type.flatMap { $0.coerce(raw) } ?? raw
            }
            try NSManagedObjectContext.throwing(NSManagedObjectContext.compositeErrors(
                composite.tree, composite.attribute, keyPath: key, values: values, object: self, entityName: entityName))
        case .attribute(let type):
            let attribute = layout.properties[slot] as! NSAttributeDescription
            var raw = type == .transformableAttributeType ? TransformableValue.slotValue(given) : Value(any: given)
            if !type.holdsOwnRepresentation(raw), let coerced = type.coerce(raw), coerced != raw {
                raw = coerced
                value.pointee = coerced.anyValue.map { $0 as AnyObject }
            }
            try NSManagedObjectContext.throwing(NSManagedObjectContext.attributeErrors(raw, attribute, object: self, entityName: entityName))
        case .toOne(let r), .toMany(let r):
            try NSManagedObjectContext.throwing(NSManagedObjectContext.relationshipErrors(given, r.relationship, object: self, entityName: entityName))
        }
    }
}

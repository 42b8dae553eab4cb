import Foundation

/// A managed object's slots read by number and named by key: what `value(forKey:)`, notifications and
/// merge conflicts build on (NSManagedObject.swift holds the object's storage).
extension NSManagedObject {
    /// Names and values of some slots, for notifications and merge conflicts.
    func dictionary(_ row: [Value]?) -> [String: Any]? {
        guard let row else { return nil }
        var result: [String: Any] = [:]
        for slot in layout.persistentSlots where slot < row.count && !row[slot].isToManyFault {
            result[layout.properties[slot].name] = objectValue(slot, row[slot])
        }
        if !layout.composites.isEmpty { foldComposites(&result, row) }
        return result
    }

    func slot(forKey key: String) throws -> Int {
        guard let slot = layout.slotByName[key] else { throw undefinedKey(key) }
        return slot
    }

    /// Core Data's error for a key that is neither in the entity nor a `@KeyValue` property.
    func undefinedKey(_ key: String) -> CoreDataError {
        CoreDataError(NSCoreDataError,
                      "[<\(entity.name ?? "?")> valueForUndefinedKey:]: the entity \(entity.name ?? "?") is not key value coding-compliant for the key \"\(key)\".",
                      userInfo: [NSValidationKeyErrorKey: key])
    }

    /// The value in a slot, firing the fault first (and the to-many fault of a to-many slot); a
    /// composite's value made from its elements' slots.
    func value(at slot: Int) -> Value {
        if isFault { fireFault() }
        guard slot < values.count else { return .null }
        let value = values[slot]
        if case .object = value {
            if value.isToManyFault { return loadedToMany(slot) }
            if !layout.composites.isEmpty, let composite = layout.composite(atSlot: slot) { return composite.value(in: values) }
        }
        return value
    }

    /// A slot's value as `value(forKey:)` hands it out: an attribute's value, a to-one's object, a
    /// to-many's set of objects; `NSNull` for nil.
    func objectValue(_ slot: Int, _ value: Value) -> Any {
        switch layout.kinds[slot] {
        case .attribute: return value.anyValue ?? NSNull()
        case .toOne: return value.objectRef.flatMap { managedObjectContext?.object(for: $0) } ?? NSNull()
        case .toMany(let r):
            let objects = value.objectRefs.compactMap { managedObjectContext?.object(for: $0) }
            return Self.collection(objects, ordered: r.isOrdered)
        }
    }
}

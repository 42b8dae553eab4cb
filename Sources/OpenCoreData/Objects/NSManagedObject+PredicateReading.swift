import Foundation
import OpenCoreDataPredicates

/// How compiled predicates read an object (`PredicateValueReading`): by slot, as the values are stored,
/// past the layout's slots the class's `@KeyValue` properties (Objects/KeyValue.swift).
extension NSManagedObject {
    /// Predicate evaluation reads slots as they are stored; objects of one entity share a layout.
    package var predicateLayout: Int { layout.serial }

    /// A model key's slot, or past the layout's slots a `@KeyValue` property's (its index after them), or
    /// past those the object's own properties' (`entity`, `isInserted`…: NSManagedObject+OwnKeys.swift).
    package func predicateSlot(forKey key: String) throws -> Int {
        if let slot = layout.slotByName[key] { return slot }
        if let property = ManagedClasses.keyValueProperty(of: type(of: self), named: key) { return layout.kinds.count + property.index }
        guard let own = ManagedObjectOwnKey(key: key) else { throw undefinedKey(key) }
        return own.slot
    }

    /// A to-many relationship's value is its objects' references as a set (an array when ordered).
    package func predicateValue(atSlot slot: Int) -> Value {
        guard slot < layout.kinds.count else {
            if let own = ManagedObjectOwnKey(slot: slot) { return Value(any: own.value(of: self)) }
            return keyValuePropertyValue(slot - layout.kinds.count)
        }
        let value = value(at: slot)
        return value.toManyMembers?.predicateValue ?? value
    }

    /// The value of the `@KeyValue` property at `index`, `.null` when this object's class lacks it (an
    /// object of the same entity made as another class).
    private func keyValuePropertyValue(_ index: Int) -> Value {
        let all = ManagedClasses.catalog.allKeyValues
        guard index < all.count, isKind(of: all[index].owner) else { return .null }
        return Value(any: all[index].get(self))
    }

    package func predicateInteger(atSlot slot: Int) -> Int64? {
        // Past the model's slots (a `@KeyValue` or own property) nothing is read here, nor a fault fired.
        guard slot < layout.kinds.count else { return nil }
        if let x = loadedInteger(slot) { return x }
        if case .int(let x) = loadedValue(slot) { return x }
        return nil
    }
}

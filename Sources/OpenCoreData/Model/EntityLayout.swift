import Foundation
import Synchronization

/// Where an entity's values live: the storage slot and SQLite column of each property (attributes and
/// relationships), its entity number, table, subentities and class. Computed once when the model is frozen.
package final class EntityLayout: @unchecked Sendable {
    /// Core Data's `Z_ENT`.
    let entityID: Int
    unowned let root: NSEntityDescription
    /// The root's `Z_ENT` (`root.layout.entityID`, kept as a number: hot paths read it per row).
    let rootEntityID: Int
    /// `Z` + the root entity's name, upper-cased (Core Data's naming).
    let tableName: String
    /// Every property, inherited first; a property's index is its storage slot.
    let properties: [NSPropertyDescription]
    /// What each slot holds.
    let kinds: [SlotKind]
    /// The SQLite column per slot: attributes and to-one relationships (`nil` for transient properties
    /// and to-many relationships, which have no column of their own).
    let columns: [String?]
    /// This entity's `Z_ENT` and those of all its subentities.
    let entityIDs: [Int]
    let objectClass: NSManagedObject.Type
    let slotByName: [String: Int]
    /// Slots saved to the store: attributes, to-one and to-many relationships that are not transient.
    let persistentSlots: [Int]
    /// The same, as a set (every slot of a saved insert changed).
    let persistentSlotSet: Set<Int>
    /// The attributes a save validates, with their slots: the persistent ones that are not derived (the
    /// store computes those). Made once, so that validating an object casts no property.
    let validatedAttributes: [(slot: Int, attribute: NSAttributeDescription, type: NSAttributeType)]
    /// Slots with a column of the entity's table (attributes and to-ones).
    let columnSlots: [Int]
    /// Slots of relationships (to-one and to-many).
    let relationshipSlots: [Int]
    /// Each slot's value for a new object: the attribute's default value, nil for a to-one, the empty
    /// set (or ordered set) for a to-many, a composite's marker.
    let defaultValues: [Value]
    /// The composite attributes, with their elements' slots (empty for an entity without any).
    let composites: [CompositeLayout]
    /// A number no other layout of this process has, ever (an address can be reused once a layout is
    /// freed): compiled predicates remember a key's slot per layout by it.
    let serial: Int
    private static let serials = Atomic<Int>(0)

    init(entityID: Int, root: NSEntityDescription, rootEntityID: Int, tableName: String, properties: [NSPropertyDescription], kinds: [SlotKind],
         columns: [String?], entityIDs: [Int], objectClass: NSManagedObject.Type) {
        self.entityID = entityID
        self.root = root
        self.rootEntityID = rootEntityID
        self.tableName = tableName
        self.properties = properties
        self.kinds = kinds
        self.columns = columns
        self.entityIDs = entityIDs
        self.objectClass = objectClass
        self.slotByName = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.persistentSlots = properties.indices.filter { !properties[$0].isTransient && (columns[$0] != nil || kinds[$0].relationship != nil) }
        self.persistentSlotSet = Set(persistentSlots)
        // A composite's elements are validated with their composite (see `compositeErrors`).
        self.validatedAttributes = persistentSlots.compactMap { slot in
            guard let a = properties[slot] as? NSAttributeDescription, !(a is NSDerivedAttributeDescription),
                  !(a is CompositeElementAttribute) else { return nil }
            return (slot, a, a.attributeType)
        }
        self.columnSlots = columns.indices.filter { columns[$0] != nil }
        self.relationshipSlots = kinds.indices.filter { kinds[$0].relationship != nil }
        self.defaultValues = properties.indices.map { i in
            switch kinds[i] {
            case .attribute(.compositeAttributeType): return CompositeLayout.marker
            case .attribute(let type):
                let a = properties[i] as? NSAttributeDescription
                return a?.defaultValue.flatMap { type.coerce(Value(any: $0)) } ?? .null
            case .toOne: return .null
            case .toMany(let r): return ToManyMembers([], ordered: r.isOrdered).value
            }
        }
        let slotByName = self.slotByName
        self.composites = properties.indices.compactMap { slot in
            guard let c = properties[slot] as? NSCompositeAttributeDescription else { return nil }
            return CompositeLayout(slot: slot, attribute: c, tree: CompositeTree(c, prefix: c.name, slotByName: slotByName))
        }
        self.serial = Self.serials.add(1, ordering: .relaxed).newValue
    }

    /// The composite whose slot is `slot`.
    func composite(atSlot slot: Int) -> CompositeLayout? { composites.first { $0.slot == slot } }

    /// The slots whose values differ between `old` and `new`, in slot order: of `slots` (the persistent
    /// slots unless given; a store writes its ``columnSlots``). What a save writes, history records and a
    /// merge reports are all this one comparison.
    func changedSlots(from old: [Value], to new: [Value], among slots: [Int]? = nil) -> [Int] {
        (slots ?? persistentSlots).filter { old[$0] != new[$0] }
    }

    /// The persistent slots whose values differ between `old` and `new`, as a set (every one when there
    /// is no `old`: a row new to the reader).
    func changedSlotSet(from old: [Value]?, to new: [Value]) -> Set<Int> {
        guard let old else { return persistentSlotSet }
        return Set(changedSlots(from: old, to: new))
    }

    /// Slots of persistent derived attributes (`NSDerivedAttributeDescription`): the store computes them.
    var derivedSlots: [Int] {
        properties.indices.filter { properties[$0] is NSDerivedAttributeDescription && !properties[$0].isTransient }
    }

    /// The attribute in a slot, `nil` for a relationship.
    func attribute(_ slot: Int) -> NSAttributeDescription? { properties[slot] as? NSAttributeDescription }

    /// The relationship in a slot, `nil` for an attribute.
    func relationship(_ slot: Int) -> RelationshipLayout? { kinds[slot].relationship }
}

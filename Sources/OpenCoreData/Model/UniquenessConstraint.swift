import Foundation

/// One uniqueness constraint of the model, resolved: the entity that declares it (a constraint covers
/// that entity and its subentities, which inherit it, as in Core Data), the constrained property names
/// as declared, and their slots in the declaring entity's layout (a subentity's layout starts with its
/// parent's properties, so the slots hold for the subentities too).
struct UniquenessConstraint {
    let entity: NSEntityDescription
    let names: [String]
    let slots: [Int]

    /// The constraints of a model, in entity order, then declaration order. A name that is not a
    /// property of the entity, or a to-many relationship, leaves the constraint out (logged): the model
    /// file reader already refuses unknown names.
    static func all(_ model: NSManagedObjectModel) -> [UniquenessConstraint] {
        model.entities.flatMap(declared(by:))
    }

    static func declared(by entity: NSEntityDescription) -> [UniquenessConstraint] {
        guard let layout = entity.layout else { return [] }
        return entity.uniquenessConstraints.compactMap { constraint in
            let names = constraint.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
            let slots = names.compactMap { layout.slotByName[$0] }
            guard !names.isEmpty, slots.count == names.count,
                  slots.allSatisfy({ layout.columns[$0] != nil || isToOne(layout.kinds[$0]) }) else {
                storeLogger.warning("CoreData: warning: the uniqueness constraint \(entity.name ?? "?") (\(names.joined(separator: ", "))) is not enforced: each name must be a stored attribute or to-one relationship")
                return nil
            }
            return UniquenessConstraint(entity: entity, names: names, slots: slots)
        }
    }

    private static func isToOne(_ kind: SlotKind) -> Bool {
        if case .toOne = kind { return true }
        return false
    }

    /// The constraints an object of `entity` must meet: its own and its superentities'.
    static func applying(to entity: NSEntityDescription) -> [UniquenessConstraint] {
        var result: [UniquenessConstraint] = []
        var e: NSEntityDescription? = entity
        while let current = e {
            result = declared(by: current) + result
            e = current.superentity
        }
        return result
    }

    /// Whether rows of entity number `entityID` are bound by this constraint.
    func covers(entityID: Int) -> Bool { entity.layout.entityIDs.contains(entityID) }

    /// The index's name: `Z_<Entity>_UNIQUE_<name>_<name>…`.
    var indexName: String { "Z_\(entity.name ?? "")_UNIQUE_\(names.joined(separator: "_"))" }

    /// The constrained values of an object's values; `nil` when one is nil (SQL's rule: NULLs are never
    /// equal, so a row with a NULL constrained value conflicts with no other).
    func key(_ values: [Value]) -> [Value]? {
        var key: [Value] = []
        key.reserveCapacity(slots.count)
        for slot in slots {
            guard slot < values.count, !values[slot].isNull else { return nil }
            key.append(values[slot])
        }
        return key
    }
}

import Foundation

/// A destination row whose to-one (`slot`, stored in `column`) points back at a deleted row under a
/// nullify rule.
struct Nullified {
    let row: BatchRow
    let column: String
    let entityColumn: String?
    let layout: EntityLayout
    let slot: Int
}

/// What a batch delete deletes, the same for every store: the target rows and every row their delete
/// rules cascade to, each once. Nullify rules are reported (the store clears those to-ones); a deny rule
/// whose destination is not deleted too refuses the whole request. The store reads each relationship's
/// destinations (`destinations(relationship, slot, layout, owners)`) inside its transaction.
enum BatchDeleteClosure {
    typealias Destinations = (RelationshipLayout, Int, EntityLayout, [Int64]) throws -> [(owner: Int64, ref: ObjectRef)]

    static func rows(from start: [BatchRow], model: NSManagedObjectModel, destinations: Destinations,
                     nullify: (Nullified) -> Void) throws -> [BatchRow] {
        var result = start
        var seen = Set(start)
        var frontier = start
        while !frontier.isEmpty {
            var next: [BatchRow] = []
            for (entityID, rows) in Dictionary(grouping: frontier, by: \.entityID).sorted(by: { $0.key < $1.key }) {
                let layout = try model.layout(entityID: entityID)
                for slot in layout.relationshipSlots {
                    guard let r = layout.relationship(slot), !r.relationship.isTransient else { continue }
                    for (_, ref) in try destinations(r, slot, layout, rows.map(\.pk)) {
                        try follow(r, layout: layout, ref, model: model, seen: &seen, next: &next, nullify: nullify)
                    }
                }
            }
            result += next
            frontier = next
        }
        return result
    }

    /// Applies one relationship's delete rule to one destination of a row being deleted.
    private static func follow(_ r: RelationshipLayout, layout: EntityLayout, _ ref: ObjectRef, model: NSManagedObjectModel,
                               seen: inout Set<BatchRow>, next: inout [BatchRow], nullify: (Nullified) -> Void) throws {
        guard case .permanent(let root, let pk) = ref.key else { return }
        let row = BatchRow(root: root, pk: pk, entityID: ref.entityID)
        switch r.relationship.deleteRule {
        case .denyDeleteRule:
            guard seen.contains(row) else {
                throw CoreDataError(NSValidationRelationshipDeniedDeleteError,
                                    "A batch delete would delete a \(layout.properties.first?.entity?.name ?? layout.tableName) whose \(r.relationship.name) has a Deny delete rule and still names an object (\(r.destination.name ?? "?") \(pk)); nothing was deleted.",
                                    userInfo: [NSValidationKeyErrorKey: r.relationship.name])
            }
        case .cascadeDeleteRule:
            if seen.insert(row).inserted { next.append(row) }
        case .nullifyDeleteRule:
            guard let inverse = r.relationship.inverseRelationship, !inverse.isToMany,
                  let destinationLayout = model.entity(number: ref.entityID)?.layout,
                  let inverseSlot = destinationLayout.slotByName[inverse.name],
                  case .toOne(let back) = destinationLayout.kinds[inverseSlot],
                  case .foreignKey(let column, let entityColumn) = back.storage else { return }
            nullify(Nullified(row: row, column: column, entityColumn: entityColumn, layout: destinationLayout, slot: inverseSlot))
        default:
            return
        }
    }
}

extension NSManagedObjectModel {
    /// The layout of an entity number a store's row names; a number the model lacks is an error.
    func layout(entityID: Int) throws -> EntityLayout {
        guard let layout = entity(number: entityID)?.layout else {
            throw CoreDataError(NSPersistentStoreOperationError, "The store holds a row of entity number \(entityID), which its model does not have.")
        }
        return layout
    }
}

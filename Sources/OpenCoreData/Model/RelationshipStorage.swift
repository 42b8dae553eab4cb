import Foundation

/// Where a relationship lives in the SQLite store (Core Data's layout), decided when the model is frozen.
enum RelationshipStorage {
    /// A to-one: the destination's primary key in `column` of the source's table (`Z<NAME>`), indexed,
    /// and its entity number in `entityColumn` when the destination has subentities.
    case foreignKey(column: String, entityColumn: String?)
    /// A to-many whose inverse is a to-one: no column of its own; its objects are the destination rows
    /// whose inverse column holds the source's key. An ordered one keeps each row's position in
    /// `orderColumn` (`Z_FOK_<INVERSE>`) of the destination's table.
    case inverseForeignKey(column: String, orderColumn: String?)
    /// A many-to-many (or a to-many without an inverse): rows of a join table.
    case joinTable(JoinTable)
    /// Transient: kept in memory only.
    case none
}

/// A join table (`Z_<n><NAME>`) as one side of a many-to-many sees it. Both sides name the same table;
/// the owner (the side of the lower entity number; in one entity, the later name) writes its rows, and
/// each ordered side writes its own order column.
struct JoinTable: Equatable {
    let name: String
    /// The column holding this side's primary key.
    let sourceColumn: String
    /// The column holding the destination's primary key.
    let destinationColumn: String
    /// The column keeping this side's order (`Z_FOK_` + the destination column's name without `Z_`),
    /// when this side is ordered.
    let orderColumn: String?
    /// The other side's order column, when the other side is ordered.
    let otherOrderColumn: String?
    /// Whether this side writes the rows.
    let isOwner: Bool
}

/// A relationship's place, resolved once: the description, its storage and the inverse's slot.
package final class RelationshipLayout: @unchecked Sendable {
    unowned let relationship: NSRelationshipDescription
    unowned let destination: NSEntityDescription
    let storage: RelationshipStorage
    /// The inverse's slot in objects of the destination (nil without an inverse).
    let inverseSlot: Int?
    /// The destination's entity number and its hierarchy's root entity number, as plain numbers: reading
    /// a row's to-one reads these, not the entity objects (whose reference counts, shared with weak
    /// references to them, are slow to change).
    let destinationEntityID: Int
    let destinationRootID: Int
    var isToMany: Bool { relationship.isToMany }
    var isOrdered: Bool { relationship.isOrdered }

    init(relationship: NSRelationshipDescription, destination: NSEntityDescription, storage: RelationshipStorage, inverseSlot: Int?,
         destinationEntityID: Int, destinationRootID: Int) {
        self.relationship = relationship
        self.destination = destination
        self.storage = storage
        self.inverseSlot = inverseSlot
        self.destinationEntityID = destinationEntityID
        self.destinationRootID = destinationRootID
    }
}

/// What a storage slot holds.
enum SlotKind {
    case attribute(NSAttributeType)
    case toOne(RelationshipLayout)
    case toMany(RelationshipLayout)

    var relationship: RelationshipLayout? {
        switch self {
        case .attribute: return nil
        case .toOne(let r), .toMany(let r): return r
        }
    }

    var attributeType: NSAttributeType? {
        if case .attribute(let t) = self { return t }
        return nil
    }
}

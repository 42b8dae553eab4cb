import Foundation

/// The words of Xcode's model file format and the Core Data values they stand for, in both directions.
enum ModelFileVocabulary {
    /// `attributeType` values, as Xcode writes them.
    static let attributeTypes: [(name: String, type: NSAttributeType)] = [
        ("Integer 16", .integer16AttributeType), ("Integer 32", .integer32AttributeType),
        ("Integer 64", .integer64AttributeType), ("Decimal", .decimalAttributeType), ("Double", .doubleAttributeType),
        ("Float", .floatAttributeType), ("String", .stringAttributeType), ("Boolean", .booleanAttributeType),
        ("Date", .dateAttributeType), ("Binary", .binaryDataAttributeType), ("UUID", .UUIDAttributeType),
        ("URI", .URIAttributeType), ("Transformable", .transformableAttributeType), ("ObjectID", .objectIDAttributeType),
        ("Composite", .compositeAttributeType), ("Undefined", .undefinedAttributeType),
    ]

    static func attributeType(named name: String) -> NSAttributeType? {
        attributeTypes.first(where: { $0.name == name })?.type
    }

    static func name(of type: NSAttributeType) -> String {
        attributeTypes.first(where: { $0.type == type })!.name
    }

    /// `deletionRule` values.
    static let deleteRules: [(name: String, rule: NSDeleteRule)] = [
        ("Nullify", .nullifyDeleteRule), ("Cascade", .cascadeDeleteRule), ("Deny", .denyDeleteRule), ("No Action", .noActionDeleteRule),
    ]

    /// `fetchIndexElement` `type` values ("R-Tree" is read as well).
    static let indexTypes: [(name: String, type: NSFetchIndexElementType)] = [("Binary", .binary), ("RTree", .rTree), ("R-Tree", .rTree)]

    /// `fetchRequest` `resultType` names accepted besides the number (`NSFetchRequestResultType`'s raw value).
    static let resultTypes: [(name: String, type: NSFetchRequestResultType)] = [
        ("Managed Object", .managedObjectResultType), ("Managed Object ID", .managedObjectIDResultType),
        ("Dictionary", .dictionaryResultType), ("Count", .countResultType),
    ]

    /// `fetchRequest` flags: an absent flag is NO.
    static var fetchRequestFlags: [(name: String, keyPath: ReferenceWritableKeyPath<NSFetchRequest<NSFetchRequestResult>, Bool>)] {
        [("includeSubentities", \.includesSubentities), ("includePropertyValues", \.includesPropertyValues),
         ("includePendingChanges", \.includesPendingChanges), ("returnObjectsAsFaults", \.returnsObjectsAsFaults),
         ("returnDistinctResults", \.returnsDistinctResults)]
    }
    /// Another spelling of `includePendingChanges`, read as well (Core Data's property name).
    static let pendingChangesAlias = "includesPendingChanges"
}

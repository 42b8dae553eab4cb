import Foundation
import OpenCoreData

/// The Core Data attribute type of a schema attribute's Swift type, as SwiftData chooses it.
struct StoredAttributeType {
    let type: NSAttributeType

    init?(_ attribute: Schema.Attribute) {
        if attribute.isTransformable { type = .transformableAttributeType; return }
        switch unwrappedType(attribute.valueType).type {
        case is String.Type: type = .stringAttributeType
        case is Bool.Type: type = .booleanAttributeType
        case is Int.Type, is Int64.Type, is UInt.Type, is UInt64.Type: type = .integer64AttributeType
        case is Int32.Type, is UInt32.Type: type = .integer32AttributeType
        case is Int16.Type, is UInt16.Type, is Int8.Type, is UInt8.Type: type = .integer16AttributeType
        case is Double.Type: type = .doubleAttributeType
        case is Float.Type: type = .floatAttributeType
        case is Decimal.Type: type = .decimalAttributeType
        case is Date.Type: type = .dateAttributeType
        case is Data.Type: type = .binaryDataAttributeType
        case is UUID.Type: type = .UUIDAttributeType
        case is URL.Type: type = .URIAttributeType
        default: return nil
        }
    }
}

extension Schema {
    /// The Core Data model of the schema, as SwiftData makes it: an entity per model class (named for it,
    /// objects of class `NSManagedObject`), an attribute or relationship per persisted property.
    func managedObjectModel() throws -> NSManagedObjectModel {
        if let problem = problems.first { throw SwiftDataError(.loadIssueModelContainer, problem) }
        return NSManagedObjectModel(entities: entities.map(Self.entityDescription))
    }

    private static func entityDescription(_ entity: Entity) -> NSEntityDescription {
        let description = NSEntityDescription(name: entity.name, properties: entity.properties.compactMap(propertyDescription))
        description.uniquenessConstraints = entity.uniquenessConstraints
        return description
    }

    private static func propertyDescription(_ property: any SchemaProperty) -> NSPropertyDescription? {
        if let relationship = property as? Relationship { return relationshipDescription(relationship) }
        guard let attribute = property as? Attribute, let stored = StoredAttributeType(attribute) else { return nil }
        let description = NSAttributeDescription(name: attribute.name, type: stored.type, optional: attribute.isOptional)
        description.isTransient = attribute.isTransient
        description.allowsExternalBinaryDataStorage = attribute.options.contains(.externalStorage)
        description.preservesValueInHistoryOnDeletion = attribute.options.contains(.preserveValueOnDeletion)
        description.valueTransformerName = attribute.options.lazy.compactMap(\.transformerName).first
        if !attribute.isTransformable { description.defaultValue = attribute.defaultValue.flatMap(storedDefault) }
        common(attribute, description, hashModifier: attribute.hashModifier)
        return description
    }

    /// A property's initial value as the attribute's default (what a lightweight migration gives the rows
    /// of an added attribute, as SwiftData's does): `nil` for `nil`.
    private static func storedDefault(_ value: Any) -> Any? {
        guard let optional = value as? any OptionalValue else { return value }
        return optional.wrappedAny.flatMap(storedDefault)
    }

    private static func relationshipDescription(_ relationship: Relationship) -> NSRelationshipDescription {
        let rule: NSDeleteRule = switch relationship.deleteRule {
        case .nullify: .nullifyDeleteRule
        case .cascade: .cascadeDeleteRule
        case .deny: .denyDeleteRule
        case .noAction: .noActionDeleteRule
        }
        let toMany = !relationship.isToOneRelationship
        let description = NSRelationshipDescription(
            name: relationship.name, destination: relationship.destination, inverse: relationship.inverseName, toMany: toMany,
            deleteRule: rule, optional: relationship.isOptional,
            minCount: toMany ? relationship.minimumModelCount ?? 0 : 0, maxCount: toMany ? relationship.maximumModelCount ?? 0 : 1)
        common(relationship, description, hashModifier: relationship.hashModifier)
        return description
    }

    private static func common(_ property: any SchemaProperty, _ description: NSPropertyDescription, hashModifier: String?) {
        description.versionHashModifier = hashModifier
        if property.originalName != property.name { description.renamingIdentifier = property.originalName }
    }
}

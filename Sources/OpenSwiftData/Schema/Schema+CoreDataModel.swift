import Foundation
import OpenCoreData

/// The Core Data attribute type of a schema attribute's Swift type, as SwiftData chooses it.
struct StoredAttributeType {
    let type: NSAttributeType

    private init(type: NSAttributeType) { self.type = type }

    init?(_ attribute: Schema.Attribute) {
        if attribute is Schema.CompositeAttribute { self.init(type: .compositeAttributeType); return }
        if attribute.isTransformable || ValueKinds.leafArrayElement(attribute.valueType) != nil { self.init(type: .transformableAttributeType); return }
        self.init(valueType: ValueKinds.rawValueType(unwrappedType(attribute.valueType).type) ?? unwrappedType(attribute.valueType).type)
    }

    init?(valueType: Any.Type) {
        switch valueType {
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
        var made: [String: NSEntityDescription] = [:]
        for entity in entities { made[entity.name] = Self.entityDescription(entity) }
        for entity in entities where !entity.subentities.isEmpty {
            made[entity.name]?.subentities = entity.subentities.sorted { $0.name < $1.name }.compactMap { made[$0.name] }
        }
        return NSManagedObjectModel(entities: entities.compactMap { made[$0.name] })
    }

    private static func entityDescription(_ entity: Entity) -> NSEntityDescription {
        let description = NSEntityDescription(name: entity.name, properties: entity.properties.compactMap(propertyDescription))
        description.uniquenessConstraints = entity.uniquenessConstraints
        description.indexes = entity.indices.map { names in
            NSFetchIndexDescription(name: "\(entity.name)_\(names.joined(separator: "_"))_index", elements: names.compactMap { name in
                description.propertiesByName[name].map { NSFetchIndexElementDescription(property: $0, collationType: .binary) }
            })
        }
        return description
    }

    private static func propertyDescription(_ property: any SchemaProperty) -> NSPropertyDescription? {
        if let relationship = property as? Relationship { return relationshipDescription(relationship) }
        if let composite = property as? CompositeAttribute { return compositeDescription(composite) }
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

    private static func compositeDescription(_ composite: CompositeAttribute) -> NSCompositeAttributeDescription {
        let description = NSCompositeAttributeDescription()
        description.name = composite.name
        description.isOptional = composite.isOptional
        description.elements = composite.properties.compactMap { field in
            StoredAttributeType(field).map { NSAttributeDescription(name: field.name, type: $0.type, optional: field.isOptional) }
        }
        common(composite, description, hashModifier: composite.hashModifier)
        return description
    }

    /// A property's initial value as the attribute's default (what a lightweight migration gives the rows
    /// of an added attribute, as SwiftData's does): `nil` for `nil`.
    private static func storedDefault(_ value: Any) -> Any? {
        if let optional = value as? any OptionalValue { return optional.wrappedAny.flatMap(storedDefault) }
        if CompositeCoding.isLeaf(type(of: value)) { return value }
        if let representable = value as? any RawRepresentable, ValueKinds.rawValueType(type(of: value)) != nil { return representable.rawValue }
        return nil  // arrays and structs: no Core Data default
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

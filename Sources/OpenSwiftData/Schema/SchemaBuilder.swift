import Foundation

/// Makes a schema's entities from model types: each type's ``PersistentModel/schemaMetadata``, the types
/// its relationships reach, and each relationship's inverse (declared, or the one relationship of the
/// destination back to the source when there is exactly one, as SwiftData infers it).
struct SchemaBuilder {
    private(set) var entities: [Schema.Entity] = []
    private(set) var problems: [String] = []

    init(_ types: [any PersistentModel.Type]) {
        var queue = types
        var seen = Set<String>()
        while !queue.isEmpty {
            let type = queue.removeFirst()
            let name = Schema.name(of: type)
            guard seen.insert(name).inserted else { continue }
            let metadata = type.schemaMetadata
            let properties = metadata.filter { !($0.metadata is any ModelConstraint) }.map { property(of: type, $0) }
            let entity = Schema.Entity(name, properties: properties, modelType: type)
            for constraint in metadata.compactMap({ $0.metadata as? any ModelConstraint }) { add(constraint, to: entity, of: type) }
            entities.append(entity)
            queue += properties.compactMap { ($0 as? Schema.Relationship).flatMap(Self.destinationType) }
        }
        for entity in entities { resolveInverses(of: entity) }
    }

    private static func destinationType(_ relationship: Schema.Relationship) -> (any PersistentModel.Type)? {
        let type = unwrappedType(relationship.valueType).type
        return (type as? any ModelArray.Type)?.elementType ?? type as? any PersistentModel.Type
    }

    private mutating func property(of type: any PersistentModel.Type, _ metadata: Schema.PropertyMetadata) -> any SchemaProperty {
        let valueType = Swift.type(of: metadata.keypath).valueType
        let base = unwrappedType(valueType).type
        if base is any PersistentModel.Type || base is any ModelArray.Type {
            let declared = metadata.metadata as? Schema.Relationship
            let relationship = Schema.Relationship(deleteRule: declared?.deleteRule ?? .nullify,
                                                   minimumModelCount: declared?.minimumModelCount, maximumModelCount: declared?.maximumModelCount,
                                                   originalName: declared?.originalName, inverse: declared?.inverseKeyPath,
                                                   hashModifier: declared?.hashModifier)
            relationship.options = declared?.options ?? []
            (relationship.name, relationship.valueType, relationship.keypath) = (metadata.name, valueType, metadata.keypath)
            if relationship.originalName.isEmpty { relationship.originalName = metadata.name }
            relationship.destination = Self.destinationType(relationship).map(Schema.name(of:)) ?? ""
            return relationship
        }
        if metadata.metadata is Schema.Relationship {
            problems.append("\(Schema.name(of: type)).\(metadata.name) is marked @Relationship but its type \(valueType) is no model nor array of models")
        }
        let declared = metadata.metadata as? Schema.Attribute
        let original = declared.flatMap { $0.originalName.isEmpty ? nil : $0.originalName }
        let attribute = Schema.Attribute(name: metadata.name, originalName: original, options: declared?.options ?? [],
                                         valueType: valueType, defaultValue: metadata.defaultValue, hashModifier: declared?.hashModifier)
        if StoredAttributeType(attribute) != nil { return attribute }
        do {
            _ = try Schema.CompositeAttribute.fields(of: valueType)
            return Schema.CompositeAttribute(name: metadata.name, originalName: original, options: declared?.options ?? [],
                                             valueType: valueType, defaultValue: metadata.defaultValue, hashModifier: declared?.hashModifier)
        } catch {
            problems.append("\(Schema.name(of: type)).\(metadata.name) has type \(valueType), which OpenSwiftData cannot store: \(error) (docs/SwiftData.md lists the types)")
            return attribute
        }
    }

    /// `#Unique` / `#Index` groups as property names on the entity.
    private mutating func add(_ constraint: any ModelConstraint, to entity: Schema.Entity, of type: any PersistentModel.Type) {
        for group in constraint.keyPathGroups {
            let names = group.compactMap { ModelKeys.lookup($0, in: type) }
            guard names.count == group.count, !names.isEmpty else {
                problems.append("#\(constraint.isIndex ? "Index" : "Unique") of \(entity.name) names a key path that is no persisted property: \(group)")
                continue
            }
            if constraint.isIndex { entity.indices.append(names) } else { entity.uniquenessConstraints.append(names) }
        }
    }

    private mutating func resolveInverses(of entity: Schema.Entity) {
        let byName = Dictionary(entities.map { ($0.name, $0) }) { a, _ in a }
        for relationship in entity.relationships where relationship.inverseName == nil {
            guard let destination = byName[relationship.destination], let destinationType = destination.modelType else { continue }
            if let keyPath = relationship.inverseKeyPath {
                guard let name = ModelKeys.lookup(keyPath, in: destinationType), destination.relationshipsByName[name] != nil else {
                    problems.append("The inverse of \(entity.name).\(relationship.name), \(keyPath), is no relationship of \(destination.name)")
                    continue
                }
                pair(relationship, destination.relationshipsByName[name]!)
                continue
            }
            let candidates = destination.relationships.filter {
                $0.destination == entity.name && $0 !== relationship && $0.inverseName == nil && $0.inverseKeyPath == nil
            }
            if candidates.count == 1, let inverse = candidates.first { pair(relationship, inverse) }
        }
    }

    private func pair(_ a: Schema.Relationship, _ b: Schema.Relationship) {
        a.inverseName = b.name
        b.inverseName = a.name
        if a.inverseKeyPath == nil { a.inverseKeyPath = b.keypath }
        if b.inverseKeyPath == nil { b.inverseKeyPath = a.keypath }
    }
}

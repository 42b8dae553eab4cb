import Foundation
import OpenCoreDataPredicates

extension MappingInference {
    /// The mapping of a pair of entities: copy when their version hashes are equal, else transform, with
    /// a mapping for every persistent property of the destination.
    func entityMapping(from s: NSEntityDescription, to d: NSEntityDescription) throws -> NSEntityMapping {
        let type: NSEntityMappingType = s.versionHash == d.versionHash ? .copyEntityMappingType : .transformEntityMappingType
        let mapping = Self.mappingOfPair(type, source: s, destination: d)
        let sources = try Self.persistentProperties(s)
        var mapped = Set<String>(), added = Set<String>()
        var attributes: [NSPropertyMapping] = [], relationships: [NSPropertyMapping] = []
        for p in Self.persistentPropertyList(d) {
            let sp = sources[p.renamingIdentifier ?? p.name]
            if sp != nil { mapped.insert(p.name) } else { added.insert(p.name) }
            if let attribute = p as? NSAttributeDescription {
                attributes.append(try Self.attributeMapping(attribute, from: sp, entity: d))
            } else if let relationship = p as? NSRelationshipDescription {
                relationships.append(try Self.relationshipMapping(relationship, from: sp, entity: d))
            }
        }
        let destinationNames = Set(Self.persistentPropertyList(d).map { $0.renamingIdentifier ?? $0.name })
        let removed = Set(sources.filter { !destinationNames.contains($0.key) }.map(\.value.name))
        mapping.attributeMappings = attributes
        mapping.relationshipMappings = relationships
        mapping.userInfo = ["mappedProperties": mapped, "addedProperties": added, "removedProperties": removed]
        return mapping
    }

    private static func mappingOfPair(_ type: NSEntityMappingType, source: NSEntityDescription, destination: NSEntityDescription) -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.mappingType = type
        mapping.name = "IEM_\(type == .copyEntityMappingType ? "Copy" : "Transform")_\(destination.name ?? "?")"
        mapping.sourceEntityName = source.name
        mapping.sourceEntityVersionHash = source.versionHash
        mapping.destinationEntityName = destination.name
        mapping.destinationEntityVersionHash = destination.versionHash
        mapping.sourceExpression = sourceFetch(source.name ?? "")
        return mapping
    }

    /// The entity's stored properties (inherited ones included), by name.
    private static func persistentPropertyList(_ entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.propertiesByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
    }

    private static func persistentProperties(_ entity: NSEntityDescription) throws -> [String: NSPropertyDescription] {
        var result: [String: NSPropertyDescription] = [:]
        for p in persistentPropertyList(entity) {
            let key = p.renamingIdentifier ?? p.name
            guard result[key] == nil else {
                throw failure("two properties of entity \(entity.name ?? "?") have the canonical name \(key) (name or renaming identifier)")
            }
            result[key] = p
        }
        return result
    }

    private static func attributeMapping(_ attribute: NSAttributeDescription, from source: NSPropertyDescription?,
                                         entity: NSEntityDescription) throws -> NSPropertyMapping {
        guard let source else { return NSPropertyMapping(name: attribute.name, valueExpression: nil) }
        guard let old = source as? NSAttributeDescription else {
            throw failure("\(attribute.name) of entity \(entity.name ?? "?") was the relationship \(source.name) and is an attribute")
        }
        guard old.attributeType == attribute.attributeType else {
            throw failure("attribute \(attribute.name) of entity \(entity.name ?? "?") changed type from \(old.attributeType.name) to \(attribute.attributeType.name)")
        }
        return NSPropertyMapping(name: attribute.name, valueExpression: NSExpression(node: .member(.variable("source"), old.name)))
    }

    /// `FUNCTION($manager, 'destinationInstancesForSourceRelationshipNamed:sourceInstances:', name, $source.name)`.
    private static func relationshipMapping(_ relationship: NSRelationshipDescription, from source: NSPropertyDescription?,
                                            entity: NSEntityDescription) throws -> NSPropertyMapping {
        guard let source else { return NSPropertyMapping(name: relationship.name, valueExpression: nil) }
        guard let old = source as? NSRelationshipDescription else {
            throw failure("\(relationship.name) of entity \(entity.name ?? "?") was the attribute \(source.name) and is a relationship")
        }
        let was = old.destinationEntity.map { $0.renamingIdentifier ?? $0.name ?? "" }
        let now = relationship.destinationEntity.map { $0.renamingIdentifier ?? $0.name ?? "" }
        guard was == now else {
            throw failure("relationship \(relationship.name) of entity \(entity.name ?? "?") leads to \(relationship.destinationEntity?.name ?? "?"), not to the entity \(old.destinationEntity?.name ?? "?") it led to")
        }
        let call = ExpressionNode.function("FUNCTION", [.variable("manager"), .constant(.string("destinationInstancesForSourceRelationshipNamed:sourceInstances:")),
                                                        .constant(.string(old.name)), .member(.variable("source"), old.name)])
        return NSPropertyMapping(name: relationship.name, valueExpression: NSExpression(node: call))
    }

    /// Core Data moves entities out of a hierarchy but never merges two: entities whose sources had no
    /// common ancestor cannot share one in the destination.
    static func checkHierarchies(_ pairs: [(NSEntityDescription, NSEntityDescription)]) throws {
        func root(_ e: NSEntityDescription) -> NSEntityDescription {
            var current = e
            while let parent = current.superentity { current = parent }
            return current
        }
        var sourceRootByDestinationRoot: [ObjectIdentifier: (NSEntityDescription, NSEntityDescription)] = [:]
        for (s, d) in pairs {
            let key = ObjectIdentifier(root(d))
            if let (other, otherSource) = sourceRootByDestinationRoot[key] {
                guard root(s) === root(otherSource) else {
                    throw failure("entities \(other.name ?? "?") and \(d.name ?? "?") share a parent in the destination model but not in the source: entity hierarchies cannot be merged")
                }
            } else {
                sourceRootByDestinationRoot[key] = (d, s)
            }
        }
    }
}

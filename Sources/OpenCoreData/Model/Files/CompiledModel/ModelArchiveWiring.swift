import Foundation

/// What a decoded model's parts name of each other, found and checked once all are decoded: the
/// inheritance (every subentity in the model, no cycle), the properties a subentity's archive copies from
/// its superentity (Core Data's compiler writes them; they are the superentity's here), relationships'
/// destinations and inverses, fetch requests' entities, fetch index and uniqueness constraint properties.
/// Each returns a description of the first problem, or `nil`.
enum ModelArchiveWiring {
    /// Inheritance: each entity's subentities are entities of the model, and walking up from any entity ends.
    static func problem(entities: [NSEntityDescription], in byName: [String: NSEntityDescription]) -> String? {
        for entity in entities {
            for sub in entity.subentities where byName[sub.name ?? ""] !== sub {
                return "entity \(entity.name ?? "?"): the subentity \(sub.name ?? "?") is not in the model's entities"
            }
            var current = entity.superentity, steps = 0
            while let parent = current {
                steps += 1
                if parent === entity || steps > entities.count { return "entity \(entity.name ?? "?"): its superentities make a cycle" }
                current = parent.superentity
            }
        }
        return nil
    }

    static func wire(_ entities: [NSEntityDescription], byName: [String: NSEntityDescription]) -> String? {
        for entity in entities where entity.superentity != nil { dropInheritedCopies(of: entity) }
        for entity in entities {
            let context = "entity \(entity.name ?? "?")"
            for case let relationship as NSRelationshipDescription in entity.properties where relationship.entity === entity {
                if let problem = resolve(relationship, byName) { return "\(context), relationship \(relationship.name): \(problem)" }
            }
            for case let fetched as NSFetchedPropertyDescription in entity.properties where fetched.entity === entity {
                if let request = fetched.fetchRequest, let problem = resolve(request, in: byName) {
                    return "\(context), fetched property \(fetched.name): \(problem)"
                }
            }
            if let problem = resolveIndexesAndConstraints(of: entity) { return "\(context): \(problem)" }
        }
        for entity in entities {
            for case let relationship as NSRelationshipDescription in entity.properties where relationship.entity === entity {
                if let problem = checkInverse(of: relationship) { return "entity \(entity.name ?? "?"), relationship \(relationship.name): \(problem)" }
            }
        }
        return nil
    }

    /// Removes from a subentity's own properties those its superentities declare (the compiler's copies).
    private static func dropInheritedCopies(of entity: NSEntityDescription) {
        let inherited = Set((entity.superentity?.properties ?? []).map(\.name))
        let own = entity.properties.filter { $0.entity === entity }
        guard own.contains(where: { inherited.contains($0.name) }) else { return }
        entity.properties = own.filter { !inherited.contains($0.name) }
    }

    private static func resolve(_ relationship: NSRelationshipDescription, _ byName: [String: NSEntityDescription]) -> String? {
        let name = relationship.destinationName ?? ""
        guard let destination = byName[name] else { return "the destination entity \(name) is not in the model" }
        relationship.destinationEntity = destination
        guard let inverseName = relationship.inverseName else { return nil }
        guard let inverse = destination.relationshipsByName[inverseName] else {
            return "the inverse \(inverseName) is not a relationship of entity \(name)"
        }
        relationship.inverseRelationship = inverse
        return nil
    }

    /// An inverse leads back: its destination is this relationship's entity or related to it by inheritance.
    private static func checkInverse(of relationship: NSRelationshipDescription) -> String? {
        guard let inverse = relationship.inverseRelationship, let entity = relationship.entity, let back = inverse.destinationEntity else { return nil }
        guard entity.isKindOf(entity: back) || back.isKindOf(entity: entity) else {
            return "the inverse \(inverse.entity?.name ?? "?").\(inverse.name) leads to entity \(back.name ?? "?"), not back to \(entity.name ?? "?")"
        }
        return nil
    }

    /// A fetch request's entity, by its name, must be an entity of the model.
    static func resolve(_ request: NSFetchRequest<NSFetchRequestResult>, in byName: [String: NSEntityDescription]) -> String? {
        let name = request.entity?.name ?? request.entityName ?? ""
        guard let entity = byName[name] else { return "the fetch request's entity \(name) is not in the model" }
        request.entity = entity
        return nil
    }

    private static func resolveIndexesAndConstraints(of entity: NSEntityDescription) -> String? {
        let properties = entity.propertiesByName
        for index in entity.indexes {
            for element in index.elements where element.property == nil {
                guard let name = element.propertyName else { return "fetch index \(index.name) has an element without a property" }
                guard let property = properties[name] else { return "the indexed property \(name) (fetch index \(index.name)) is not a property of the entity" }
                element.property = property
            }
        }
        for constraint in entity.uniquenessConstraints {
            for case let name as String in constraint where properties[name] == nil {
                return "the constrained property \(name) is not a property of the entity"
            }
        }
        return nil
    }
}

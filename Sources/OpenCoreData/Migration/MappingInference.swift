import Foundation
import OpenCoreDataPredicates

/// The mapping Core Data's lightweight migration infers between two models
/// (``NSMappingModel/inferredMappingModel(forSourceModel:destinationModel:)``). Entities and properties
/// pair up by their canonical names (the renaming identifier, else the name: Apple's rule, so that a
/// rename in version 2 and another in version 3 both migrate from version 1). A pair with equal version
/// hashes is copied, any other pair transformed property by property; unpaired destination entities are
/// added and unpaired source entities removed. What Core Data does not infer throws
/// `NSInferredMappingModelError`: an attribute whose type changed, a property that changed between
/// attribute and relationship, a relationship whose destination is another entity, two entities or
/// properties with one canonical name, and entity hierarchies merged (docs/Migration.md).
struct MappingInference {
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel

    func entityMappings() throws -> [NSEntityMapping] {
        let sources = try Self.byCanonicalName(source.entities, what: "entities of the source model") { $0.renamingIdentifier ?? $0.name ?? "" }
        let destinations = try Self.byCanonicalName(destination.entities, what: "entities of the destination model") { $0.renamingIdentifier ?? $0.name ?? "" }
        var mappings: [NSEntityMapping] = []
        var pairs: [(NSEntityDescription, NSEntityDescription)] = []
        for d in destination.entities {
            if let s = sources[Self.canonical(d)] {
                pairs.append((s, d))
                mappings.append(try entityMapping(from: s, to: d))
            } else {
                mappings.append(Self.mapping(.addEntityMappingType, "Add", source: nil, destination: d))
            }
        }
        for s in source.entities where destinations[Self.canonical(s)] == nil {
            mappings.append(Self.mapping(.removeEntityMappingType, "Remove", source: s, destination: nil))
        }
        try Self.checkHierarchies(pairs)
        return mappings
    }

    private static func canonical(_ entity: NSEntityDescription) -> String { entity.renamingIdentifier ?? entity.name ?? "" }
    private static func canonical(_ property: NSPropertyDescription) -> String { property.renamingIdentifier ?? property.name }

    /// Items by canonical name; two with one name cannot be told apart, so nothing can be inferred.
    private static func byCanonicalName<T>(_ items: [T], what: String, _ name: (T) -> String) throws -> [String: T] {
        var result: [String: T] = [:]
        for item in items {
            let key = name(item)
            guard result[key] == nil else { throw failure("two \(what) have the canonical name \(key) (name or renaming identifier)") }
            result[key] = item
        }
        return result
    }

    static func failure(_ reason: String) -> CoreDataError {
        CoreDataError(NSInferredMappingModelError, "Can't find or automatically infer mapping model for migration: \(reason)",
                      userInfo: ["reason": reason])
    }

    private static func mapping(_ type: NSEntityMappingType, _ word: String, source: NSEntityDescription?,
                                destination: NSEntityDescription?) -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.mappingType = type
        mapping.name = "IEM_\(word)_\((destination ?? source)?.name ?? "?")"
        mapping.sourceEntityName = source?.name
        mapping.sourceEntityVersionHash = source?.versionHash
        mapping.destinationEntityName = destination?.name
        mapping.destinationEntityVersionHash = destination?.versionHash
        if let name = source?.name { mapping.sourceExpression = sourceFetch(name) }
        return mapping
    }

    /// `FETCH(FUNCTION($manager, 'fetchRequestForSourceEntityNamed:predicateString:', name, 'TRUEPREDICATE'),
    /// $manager.sourceContext, NO)`: every instance of the source entity (or those matching `predicate`), as
    /// Xcode's mapping models say it.
    static func sourceFetch(_ entityName: String, predicate: String = "TRUEPREDICATE") -> NSExpression {
        let request = ExpressionNode.function("FUNCTION", [.variable("manager"), .constant(.string("fetchRequestForSourceEntityNamed:predicateString:")),
                                                           .constant(.string(entityName)), .constant(.string(predicate))])
        return NSExpression(node: .fetch(request, .member(.variable("manager"), "sourceContext"), countOnly: false))
    }
}

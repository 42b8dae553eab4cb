import Foundation

/// Mirrors Core Data's `NSEntityMapping`: how the instances of a source entity become instances of a
/// destination entity, one of a mapping model's entity mappings.
open class NSEntityMapping: NSObject {
    /// Mirrors `name`: unique in its mapping model.
    open var name: String!
    /// Mirrors `mappingType`.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    /// Mirrors `sourceEntityName`; `nil` for an added entity.
    open var sourceEntityName: String?
    /// Mirrors `sourceEntityVersionHash`: the source entity's `versionHash`.
    open var sourceEntityVersionHash: Data?
    /// Mirrors `destinationEntityName`; `nil` for a removed entity.
    open var destinationEntityName: String?
    /// Mirrors `destinationEntityVersionHash`.
    open var destinationEntityVersionHash: Data?
    /// Mirrors `attributeMappings`.
    open var attributeMappings: [NSPropertyMapping]?
    /// Mirrors `relationshipMappings`.
    open var relationshipMappings: [NSPropertyMapping]?
    /// Mirrors `sourceExpression`: the source instances to migrate (a fetch of the source entity).
    open var sourceExpression: NSExpression?
    /// Mirrors `entityMigrationPolicyClassName`.
    open var entityMigrationPolicyClassName: String?
    /// Mirrors `userInfo`. An inferred mapping keeps what Core Data's do: `mappedProperties`,
    /// `addedProperties` and `removedProperties`, each a `Set<String>` of property names.
    open var userInfo: [AnyHashable: Any]?

    /// Mirrors `init()`.
    public override init() { super.init() }

    /// Mirrors `isEqual(_:)`: as on Apple platforms, equal when every property of the two mappings is
    /// (names, type, entities and their version hashes, property mappings in order, source expression,
    /// policy class, user info): two mappings read from one `.xcmappingmodel` are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSEntityMapping else { return false }
        if other === self { return true }
        return name == other.name && mappingType == other.mappingType
            && sourceEntityName == other.sourceEntityName && sourceEntityVersionHash == other.sourceEntityVersionHash
            && destinationEntityName == other.destinationEntityName
            && destinationEntityVersionHash == other.destinationEntityVersionHash
            && attributeMappings == other.attributeMappings && relationshipMappings == other.relationshipMappings
            && sourceExpression == other.sourceExpression
            && entityMigrationPolicyClassName == other.entityMigrationPolicyClassName
            && NSPropertyMapping.equalUserInfo(userInfo, other.userInfo)
    }

    /// Mirrors `hash`: of the name (equal mappings have the same).
    open override var hash: Int { name.hashValue }

    open override var description: String {
        "NSEntityMapping(\(name ?? "nil"): \(sourceEntityName ?? "nil") -> \(destinationEntityName ?? "nil"), type \(mappingType.rawValue))"
    }
}

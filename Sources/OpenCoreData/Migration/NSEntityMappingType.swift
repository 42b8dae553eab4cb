/// Mirrors Core Data's `NSEntityMappingType`: what an entity mapping does with the source's instances.
public enum NSEntityMappingType: UInt, Sendable {
    /// Mirrors `undefinedEntityMappingType`.
    case undefinedEntityMappingType = 0
    /// Mirrors `customEntityMappingType`: a migration policy does the work.
    case customEntityMappingType = 1
    /// Mirrors `addEntityMappingType`: the destination entity is new; no source instances.
    case addEntityMappingType = 2
    /// Mirrors `removeEntityMappingType`: the source entity has no destination; its instances go.
    case removeEntityMappingType = 3
    /// Mirrors `copyEntityMappingType`: the entity is unchanged (equal version hashes).
    case copyEntityMappingType = 4
    /// Mirrors `transformEntityMappingType`: the entity changed; its properties map one by one.
    case transformEntityMappingType = 5
}

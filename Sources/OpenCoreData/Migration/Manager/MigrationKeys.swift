import Foundation

/// Mirrors `NSMigrationManagerKey`: the variable a mapping's expressions name the migration manager by
/// (`$manager`).
public let NSMigrationManagerKey = "manager"
/// Mirrors `NSMigrationSourceObjectKey`: the source instance (`$source`).
public let NSMigrationSourceObjectKey = "source"
/// Mirrors `NSMigrationDestinationObjectKey`: the destination instance (`$destination`).
public let NSMigrationDestinationObjectKey = "destination"
/// Mirrors `NSMigrationEntityMappingKey`: the entity mapping being run (`$entityMapping`).
public let NSMigrationEntityMappingKey = "entityMapping"
/// Mirrors `NSMigrationPropertyMappingKey`: the property mapping being evaluated (`$propertyMapping`).
public let NSMigrationPropertyMappingKey = "propertyMapping"
/// Mirrors `NSMigrationEntityPolicyKey`: the entity mapping's migration policy (`$entityPolicy`).
public let NSMigrationEntityPolicyKey = "entityPolicy"

import Foundation

/// Mirrors Core Data's `NSEntityMigrationPolicy`: what an entity mapping does in each pass of a
/// migration. The default creates one destination instance per source instance with the values of the
/// mapping's attribute mappings, then sets the relationship mappings' values. Subclass it and name the
/// subclass in the mapping's `entityMigrationPolicyClassName` (module-qualified, `MyApp.MyPolicy`: Linux
/// finds Swift classes by that name) to change a pass.
open class NSEntityMigrationPolicy: NSObject {
    /// Mirrors `init()`; `required` so that the manager can make the class a mapping names.
    public required override init() { super.init() }

    /// Mirrors `begin(_:with:)`: called before the mapping's first pass.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Mirrors `createDestinationInstances(forSource:in:manager:)`: inserts an instance of the mapping's
    /// destination entity into the destination context, sets each attribute mapping's value (evaluated
    /// with `$source`, `$manager`, `$entityMapping`, `$propertyMapping`, `$entityPolicy`; a mapping
    /// without a value expression keeps the attribute's default), and associates it with the source.
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                         manager: NSMigrationManager) throws {
        guard let entity = manager.destinationEntity(for: mapping) else {
            throw CoreDataError(NSMigrationError, "The destination model has no entity \(mapping.destinationEntityName ?? "(none)") for the entity mapping \(mapping.name ?? "?").")
        }
        let destination = NSManagedObject(entity: entity, insertInto: manager.destinationContext)
        for property in mapping.attributeMappings ?? [] {
            guard let name = property.name, let expression = property.valueExpression else { continue }
            let value = try manager.evaluate(expression, source: sInstance, destination: destination, mapping: mapping,
                                             property: property, policy: self)
            destination.setValue(value, forKey: name)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Mirrors `endInstanceCreation(forMapping:manager:)`: called after the mapping's first pass.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Mirrors `createRelationships(forDestination:in:manager:)`: sets each relationship mapping's value on
    /// an instance the mapping made (evaluated with its source instance as `$source`): the destination
    /// instances of the source's related instances, made by whichever mappings made them.
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping,
                                  manager: NSMigrationManager) throws {
        guard let source = manager.sourceInstances(forEntityMappingName: mapping.name ?? "", destinationInstances: [dInstance]).first else { return }
        for property in mapping.relationshipMappings ?? [] {
            guard let name = property.name, let expression = property.valueExpression,
                  let relationship = dInstance.entity.relationshipsByName[name] else { continue }
            let value = try manager.evaluate(expression, source: source, destination: dInstance, mapping: mapping,
                                             property: property, policy: self)
            let objects = MigrationExpression.objects(in: value)
            dInstance.setValue(relationship.isToMany ? objects as Any : objects.first as Any?, forKey: name)
        }
    }

    /// Mirrors `endRelationshipCreation(forMapping:manager:)`: called after the mapping's second pass.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Mirrors `performCustomValidation(forMapping:manager:)`: the third pass, before the destination is
    /// saved (which validates every object as a save does).
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Mirrors `end(_:manager:)`: called after the mapping's last pass.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Not in Core Data: a mapping expression's `FUNCTION($entityPolicy, "selector:", arguments…)`. Core Data
    /// sends the selector to the policy by Objective-C dispatch, which Linux does not have: a subclass
    /// overrides this and answers the selectors its mapping model names (`selector` as written, e.g.
    /// `"fullNameFrom:last:"`, with the evaluated arguments). The default throws `NSMigrationError` naming
    /// the selector.
    open func perform(function selector: String, arguments: [Any?], manager: NSMigrationManager) throws -> Any? {
        throw CoreDataError(NSMigrationError,
                            "FUNCTION($entityPolicy, \"\(selector)\"): \(type(of: self)) does not implement it (override perform(function:arguments:manager:); Linux has no Objective-C dispatch).")
    }
}

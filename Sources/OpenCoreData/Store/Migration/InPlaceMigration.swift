import Foundation
import OpenCoreDataPredicates

/// Core Data's lightweight (inferred) migration of a SQLite store, done in place in SQL in one
/// transaction: the mapping ``NSMappingModel/inferredMappingModel(forSourceModel:destinationModel:)``
/// infers from the store's model (found by ``MigrationSourceModel``) straight to the coordinator's, as
/// Core Data infers (no walk through intermediate versions). A table whose rows only gain columns is
/// altered (`ALTER TABLE … ADD COLUMN`); any other is rebuilt (the old table renamed aside, the new one
/// created as a new store creates it, rows copied by `INSERT … SELECT`, the old one dropped); join tables
/// are rebuilt from the relationships' rows; then indexes, `Z_PRIMARYKEY` and `Z_METADATA` follow the
/// destination model. Rows keep their `Z_PK`, so foreign keys stay valid. docs/Migration.md.
struct InPlaceMigration {
    /// A laid-out copy of the store's model (see ``MigrationSourceModel/layoutCopy(of:)``).
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel
    /// The destination's tables, by root entity number.
    let tables: [Int: TableInfo]
    /// The source's tables, by root entity number.
    let sourceTables: [Int: TableInfo]
    let path: String
    /// Destination entity → its source entity (added entities have none).
    let sourceEntity: [ObjectIdentifier: NSEntityDescription]
    /// Source entity number → destination entity number (removed entities have none).
    let numbers: [Int: Int]
    /// Destination entity → destination property name → source property name (`nil`: added).
    let propertySources: [ObjectIdentifier: [String: String?]]
    /// `NSPersistentStoreDeferredLightweightMigrationOptionKey`: the source's replaced tables are kept (renamed)
    /// for `finishDeferredLightweightMigration()` to drop, instead of being dropped in the migration.
    var defersCleanup = false

    /// The migration from the store's model to `model`: `NSMigrationMissingSourceModelError` (134130)
    /// when no model matches the metadata, `NSMigrationMissingMappingModelError` (134140, the inference
    /// error as `NSUnderlyingErrorKey`) when the mapping cannot be inferred.
    static func plan(metadata: [String: Any], model: NSManagedObjectModel, tables: [Int: TableInfo], path: String,
                     knownSource: NSManagedObjectModel? = nil) throws -> InPlaceMigration {
        let found = try MigrationSourceModel.find(for: metadata, destination: model, path: path, known: knownSource)
        let source = try MigrationSourceModel.layoutCopy(of: found)
        let mapping: NSMappingModel
        do {
            mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: model)
        } catch let error as NSError {
            throw CoreDataError(NSMigrationMissingMappingModelError,
                                "Can't find or automatically infer a mapping model to migrate the store at \(path) (\(error.localizedDescription)); it was left untouched.",
                                userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: error])
        }
        var sourceTables: [Int: TableInfo] = [:]
        for root in source.entities where root.superentity == nil {
            sourceTables[root.layout.entityID] = TableInfo(root: root, entities: source.entities)
        }
        let sources = source.entitiesByName, destinations = model.entitiesByName
        var sourceEntity: [ObjectIdentifier: NSEntityDescription] = [:]
        var numbers: [Int: Int] = [:]
        var propertySources: [ObjectIdentifier: [String: String?]] = [:]
        for m in mapping.entityMappings ?? [] where m.mappingType == .copyEntityMappingType || m.mappingType == .transformEntityMappingType {
            guard let s = m.sourceEntityName.flatMap({ sources[$0] }), let d = m.destinationEntityName.flatMap({ destinations[$0] }) else { continue }
            sourceEntity[ObjectIdentifier(d)] = s
            numbers[s.layout.entityID] = d.layout.entityID
            var names: [String: String?] = [:]
            for p in (m.attributeMappings ?? []) + (m.relationshipMappings ?? []) {
                guard let name = p.name else { continue }
                names[name] = p.valueExpression.flatMap(sourcePropertyName)
            }
            propertySources[ObjectIdentifier(d)] = names
        }
        return InPlaceMigration(source: source, destination: model, tables: tables, sourceTables: sourceTables, path: path,
                               sourceEntity: sourceEntity, numbers: numbers, propertySources: propertySources)
    }

    /// The source property an inferred property mapping reads: `$source.<name>`, or the name in
    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<name>", …)`.
    private static func sourcePropertyName(_ expression: NSExpression) -> String? {
        switch expression.node {
        case .member(.variable("source"), let name): return name
        case .function(_, let arguments) where arguments.count == 4:
            if case .constant(.string(let name)) = arguments[2] { return name }
            return nil
        default: return nil
        }
    }

    /// The source counterpart of a destination property of `d`, when it has one.
    func sourceProperty(of p: NSPropertyDescription, in d: NSEntityDescription) -> (entity: NSEntityDescription, slot: Int)? {
        guard let s = sourceEntity[ObjectIdentifier(d)] else { return nil }
        let known = propertySources[ObjectIdentifier(d)] ?? [:]
        let name: String? = if let mapped = known[p.name] { mapped } else { p.name }  // a composite's leaves: by name
        guard let name, let slot = s.layout.slotByName[name] else { return nil }
        return (s, slot)
    }

    /// The source table that holds an entity's rows.
    func sourceTable(of s: NSEntityDescription) -> TableInfo { sourceTables[s.layout.rootEntityID]! }

    /// `expr`, an entity number of the source, as the destination's number (`NULL` for a removed entity).
    func renumbered(_ expr: String) -> String {
        if numbers.allSatisfy({ $0.key == $0.value }) && numbers.count == source.entities.count { return expr }
        let cases = numbers.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ")
        return "CASE \(expr) \(cases) ELSE NULL END"
    }

    func failure(_ code: Int, _ message: String, _ userInfo: [String: Any] = [:]) -> CoreDataError {
        CoreDataError(code, "The store at \(path) cannot be migrated: \(message); it was left untouched.",
                      userInfo: userInfo.merging([NSFilePathErrorKey: path]) { a, _ in a })
    }
}

import Foundation

/// Mirrors SwiftData's `SchemaMigrationPlan`: the versions of an app's schema and the stages that
/// migrate a store from one to the next. `ModelContainer(for:migrationPlan:configurations:)`
/// runs it on each store before opening it (docs/SwiftData.md, "Schema evolution").
public protocol SchemaMigrationPlan: SendableMetatype {
    /// Mirrors `schemas`: every version a store may be at, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// Mirrors `stages`: the migrations between versions, in the order they are tried.
    static var stages: [MigrationStage] { get }
}

/// Mirrors SwiftData's `MigrationStage`: one migration between two versions of a schema.
public enum MigrationStage: Sendable {
    /// Mirrors `lightweight(fromVersion:toVersion:)`: the store migrates by Core Data's inferred
    /// (lightweight) migration, in place: added properties take their default, renamed ones
    /// (`@Attribute(originalName:)`) keep their values, added models start empty.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// Mirrors `custom(fromVersion:toVersion:willMigrate:didMigrate:)`: `willMigrate` gets a context over
    /// the store at `fromVersion`'s models, the store then migrates lightweight, and `didMigrate` gets a
    /// context over it at `toVersion`'s. What a closure leaves unsaved is saved when it returns; an error
    /// it throws stops the migration and the store is put back as it was before the plan ran.
    @preconcurrency
    case custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }
}

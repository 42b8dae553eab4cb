import Foundation

/// Mirrors SwiftData's `VersionedSchema`: one version of an app's schema, its models and its version.
/// Versions conventionally nest model classes of the same names in their own types
/// (`enum V1: VersionedSchema { @Model final class Trip {…} }`); an entity is named for the class alone,
/// so each version's `Trip` is the same entity, as SwiftData names it.
public protocol VersionedSchema: SendableMetatype {
    /// Mirrors `versionIdentifier`: the version, which orders the plan's schemas (a store at a later
    /// version than the container's schema throws `SwiftDataError.backwardMigration`).
    static var versionIdentifier: Schema.Version { get }
    /// Mirrors `models`: the model types of this version (and, through their relationships, the types
    /// they reach).
    static var models: [any PersistentModel.Type] { get }
}

extension Schema {
    /// Mirrors `init(versionedSchema:)`: the schema of a version's models, at its version identifier.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}

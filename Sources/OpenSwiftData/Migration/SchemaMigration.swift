import Foundation
import OpenCoreData

/// A schema migration plan run on one SQLite store before its container opens it, through Core Data's
/// staged migration: each version's schema becomes its Core Data model, a lightweight stage an
/// `NSLightweightMigrationStage` of the two models, a custom stage an `NSCustomMigrationStage` whose
/// handlers call the app's closures with a ``ModelContext`` over the store at that step. The store's
/// files are copied first and put back if any stage fails, so a failed plan leaves the store as it was.
struct SchemaMigration {
    /// One version of the plan: its type, schema and Core Data model.
    struct Version {
        let type: any VersionedSchema.Type
        let schema: Schema
        let model: NSManagedObjectModel
        var name: String { "\(type) \(type.versionIdentifier)" }
    }

    private let plan: any SchemaMigrationPlan.Type
    private let versions: [Version]
    private let destination: NSManagedObjectModel
    private let destinationVersion: Schema.Version

    /// The plan's versions as models; throws `unknownSchema` for a stage naming a version the plan's
    /// `schemas` lack, `loadIssueModelContainer` for a version whose models cannot make a schema.
    init(_ plan: any SchemaMigrationPlan.Type, to schema: Schema, model: NSManagedObjectModel) throws {
        self.plan = plan
        versions = try plan.schemas.map { type in
            let schema = Schema(versionedSchema: type)
            return Version(type: type, schema: schema, model: try schema.managedObjectModel())
        }
        destination = model
        destinationVersion = versions.last { $0.model.versionChecksum == model.versionChecksum }?.type.versionIdentifier ?? schema.version
        for stage in plan.stages {
            for type in [stage.fromVersion, stage.toVersion] where version(of: type) == nil {
                throw SwiftDataError(.unknownSchema, "a stage of \(plan) names \(type), which is not in its schemas")
            }
        }
    }

    private func version(of type: any VersionedSchema.Type) -> Version? {
        versions.first { ObjectIdentifier($0.type) == ObjectIdentifier(type) }
    }

    /// Migrates the store of `configuration` (opened with `options`) to the container's model; nothing
    /// for a new store, one at that model already, one in memory or not in a file, or one holding part of
    /// the schema (a configuration's own schema: docs/SwiftData.md). Throws `backwardMigration` for a store at a later version,
    /// `unknownDataStoreSchema` for one at no version of the plan, an error a stage's closure threw as it
    /// is, and `loadIssueModelContainer` for a migration Core Data could not make.
    func migrateStore(of configuration: ModelConfiguration, options: [AnyHashable: Any]) throws {
        let url = configuration.url
        guard !configuration.isStoredInMemoryOnly, url.isFileURL,
              configuration.schema.map({ Set($0.entities.map(\.name)) == Set(destination.entitiesByName.keys) }) ?? true,
              let metadata = try Self.metadata(at: url),
              !destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return }
        guard let current = versions.last(where: { $0.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }) else {
            throw SwiftDataError(.unknownDataStoreSchema, "the store at \(url.path) is at none of the versions of \(plan) (\(versions.map(\.name).joined(separator: ", ")))")
        }
        guard current.type.versionIdentifier <= destinationVersion else {
            throw SwiftDataError(.backwardMigration, "the store at \(url.path) is at \(current.name), later than the container's schema (\(destinationVersion))")
        }
        let backup = try StoreFileBackup(of: url)
        do {
            try manager().migrateStore(at: url, options: options, to: destination)
        } catch {
            try backup.restore()
            throw reported(error, url: url)
        }
        backup.discard()
    }

    private static func metadata(at url: URL) throws -> [String: Any]? {
        guard ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0) > 0 else { return nil }
        do {
            return try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "the store at \(url.path) cannot be read to migrate it: \(error)")
        }
    }

    private func manager() -> NSStagedMigrationManager {
        let manager = NSStagedMigrationManager(plan.stages.map(stage))
        manager.knownModels = versions.map(\.model)
        return manager
    }

    private func stage(_ stage: MigrationStage) -> NSMigrationStage {
        let (from, to) = (version(of: stage.fromVersion)!, version(of: stage.toVersion)!)
        let made: NSMigrationStage
        switch stage {
        case .lightweight:
            made = NSLightweightMigrationStage([from.model.versionChecksum, to.model.versionChecksum])
        case .custom(_, _, let willMigrate, let didMigrate):
            let custom = NSCustomMigrationStage(migratingFrom: Self.reference(from), to: Self.reference(to))
            if let willMigrate { custom.willMigrateHandler = { manager, _ in try Self.run(willMigrate, in: manager, schema: from.schema) } }
            if let didMigrate { custom.didMigrateHandler = { manager, _ in try Self.run(didMigrate, in: manager, schema: to.schema) } }
            made = custom
        }
        made.label = "\(from.name) to \(to.name)"
        return made
    }

    private static func reference(_ version: Version) -> NSManagedObjectModelReference {
        NSManagedObjectModelReference(model: version.model, versionChecksum: version.model.versionChecksum)
    }

    /// Calls a stage's closure with a context over the store the manager's container has open, then
    /// saves what it left unsaved.
    private static func run(_ body: @Sendable (ModelContext) throws -> Void, in manager: NSStagedMigrationManager, schema: Schema) throws {
        guard let coordinator = manager.container?.persistentStoreCoordinator else {
            preconditionFailure("NSStagedMigrationManager calls a custom stage's handler with its container set")
        }
        let context = ModelContext(ModelContainer(schema: schema, coordinator: coordinator))
        do {
            try body(context)
            try context.save()
        } catch {
            throw ClosureFailure(error: error)
        }
    }

    private func reported(_ error: any Error, url: URL) -> any Error {
        if let failure = error as? ClosureFailure { return failure.error }
        if error is SwiftDataError { return error }
        return SwiftDataError(.loadIssueModelContainer, "\(plan) could not migrate the store at \(url.path), which is as it was: \(error)")
    }

    /// An error a stage's closure threw, which the container's initializer rethrows as it is.
    private struct ClosureFailure: Error {
        let error: any Error
    }
}

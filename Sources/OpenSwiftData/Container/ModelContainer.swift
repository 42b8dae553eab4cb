import Foundation
import OpenCoreData

/// Mirrors SwiftData's `ModelContainer`: a schema and the stores its configurations describe, over Core
/// Data's stack (a coordinator with the schema's Core Data model, one store per configuration).
public final class ModelContainer: @unchecked Sendable {
    /// Mirrors `schema`.
    public let schema: Schema
    /// Mirrors `configurations`.
    public let configurations: Set<ModelConfiguration>
    /// Mirrors `migrationPlan`: the plan each store is migrated by before it opens (docs/SwiftData.md).
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The Core Data model made from the schema (docs/SwiftData.md: the model SwiftData makes).
    public let managedObjectModel: NSManagedObjectModel
    /// The coordinator of the container's stores.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// The model's entities by name (`NSManagedObjectModel.entitiesByName` makes its dictionary per call).
    let entitiesByName: [String: NSEntityDescription]
    /// The bridges of the container's custom data stores, made when their stores open (``erase()`` keeps them).
    private(set) var dataStoreBridges: [any DataStoreBridging] = []
    /// The entities custom data stores hold (none without custom stores).
    private(set) var customStoreEntities: Set<String> = []
    private let mainContextLock = NSLock()
    private nonisolated(unsafe) var _mainContext: ModelContext?

    /// Mirrors `init(for:migrationPlan:configurations:)` with a schema: opens (or creates) each
    /// configuration's store, migrating it by `migrationPlan`'s stages, or lightweight without a plan, if
    /// its model is older. Throws `SwiftDataError.loadIssueModelContainer` naming what failed (a type the
    /// schema cannot store, a store that does not open), or what the plan threw.
    public convenience init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]) throws {
        try self.init(schema, migrationPlan: migrationPlan, stores: configurations)
    }

    /// Opens each configuration's store: a ``ModelConfiguration``'s as Core Data's own, any other's
    /// ``DataStore`` through a bridge into the same coordinator (docs/SwiftData.md, "Custom stores").
    init(_ schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, stores: [any DataStoreConfiguration]) throws {
        let stores = stores.isEmpty ? [ModelConfiguration()] : stores
        (self.schema, self.migrationPlan) = (schema, migrationPlan)
        let own = stores.compactMap { $0 as? ModelConfiguration }
        configurations = Set(own)
        guard Set(stores.map(\.name)).count == stores.count, configurations.count == own.count else {
            throw SwiftDataError(.duplicateConfiguration, "two configurations describe the same store")
        }
        managedObjectModel = try schema.managedObjectModel()
        try Self.assignConfigurations(stores, of: schema, to: managedObjectModel)
        persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        entitiesByName = managedObjectModel.entitiesByName
        for configuration in stores {
            if let configuration = configuration as? ModelConfiguration { try open(configuration) } else { try openDataStore(configuration) }
        }
        dataStoreBridges = persistentStoreCoordinator.persistentStores.compactMap { $0 as? any DataStoreBridging }
        customStoreEntities = Set(managedObjectModel.entities.compactMap(\.name).filter { dataStoreBridge(forEntity: $0) != nil })
    }

    /// Mirrors `init(for:migrationPlan:configurations:)` with a schema and configurations as arguments.
    public convenience init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Mirrors `init(for:migrationPlan:configurations:)` with model types: a schema of those types (and the
    /// types their relationships reach).
    public convenience init(for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container over a coordinator whose store is open already (a migration stage's, for its closures).
    init(schema: Schema, coordinator: NSPersistentStoreCoordinator) {
        (self.schema, configurations, migrationPlan) = (schema, [], nil)
        (managedObjectModel, persistentStoreCoordinator) = (coordinator.managedObjectModel, coordinator)
        entitiesByName = managedObjectModel.entitiesByName
    }

    /// Mirrors `mainContext`: the main actor's context, made on first use, autosaving, merging what the
    /// container's other contexts save (on the main queue).
    @MainActor public var mainContext: ModelContext {
        mainContextLock.withLock {
            if let context = _mainContext { return context }
            let context = ModelContext(self, concurrencyType: .mainQueueConcurrencyType)
            context.autosaveEnabled = true
            context.managedObjectContext.automaticallyMergesChangesFromParent = true
            _mainContext = context
            return context
        }
    }

    /// Gives each configuration with a schema of its own a Core Data configuration of that name.
    private static func assignConfigurations(_ configurations: [any DataStoreConfiguration], of schema: Schema, to model: NSManagedObjectModel) throws {
        for configuration in configurations {
            guard let part = configuration.schema else { continue }
            let entities = try part.entities.map { entity in
                guard let found = model.entitiesByName[entity.name] else {
                    throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "\(entity.name) of configuration \(configuration.name)")
                }
                return found
            }
            model.setEntities(entities, forConfigurationName: configuration.name)
        }
    }

    private func open(_ configuration: ModelConfiguration) throws {
        try configuration.validate()
        if !configuration.isStoredInMemoryOnly, configuration.url.isFileURL {
            try FileManager.default.createDirectory(at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                                           NSPersistentHistoryTrackingKey: true]
        if !configuration.allowsSave { options[NSReadOnlyPersistentStoreOption] = true }
        if let migrationPlan {
            try SchemaMigration(migrationPlan, to: schema, model: managedObjectModel).migrateStore(of: configuration, options: options)
        }
        do {
            try persistentStoreCoordinator.addPersistentStore(ofType: NSSQLiteStoreType,
                                                              configurationName: configuration.schema == nil ? nil : configuration.name,
                                                              at: configuration.url, options: options)
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "the store of configuration \(configuration.name) at \(configuration.url) did not open: \(error)")
        }
    }

    /// Mirrors `deleteAllData()`: removes every store's data (the stores stay open, empty).
    public func deleteAllData() {
        do { try erase() } catch { ModelContext.logger.error("deleteAllData(): \(error)") }
    }

    /// Mirrors `erase()`: destroys each store and opens it again, empty.
    public func erase() throws {
        for store in persistentStoreCoordinator.persistentStores {
            if let bridge = store as? any DataStoreBridging {
                try bridge.eraseStore()
                continue
            }
            guard let url = store.url else { continue }
            let (type, configuration, options) = (store.type, store.configurationName, store.options)
            try persistentStoreCoordinator.remove(store)
            try persistentStoreCoordinator.destroyPersistentStore(at: url, ofType: type, options: options)
            try persistentStoreCoordinator.addPersistentStore(ofType: type, configurationName: configuration == "Default" ? nil : configuration,
                                                              at: url, options: options)
        }
    }
}

import Foundation

/// Mirrors `NSPersistentStoreStagedMigrationManagerOptionKey`: a store option whose value is an
/// ``NSStagedMigrationManager``; adding the store runs its stages first.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// Mirrors Core Data's `NSStagedMigrationManager`: migrates a store through its stages, in order, when the
/// store is added with ``NSPersistentStoreStagedMigrationManagerOptionKey``. From the store's model
/// version (found by its metadata among the stages' models, the versions of the model the store is added
/// with, and the models of the app's bundles), each step takes the stage that starts at the store's
/// version: a lightweight stage migrates it to its last version, a custom stage calls its handlers around
/// a migration to its next model. It stops at the model the store is added with; a version no stage
/// leads on from fails the add with `NSMigrationError`, naming it, and the store stays in the last
/// version reached (each step is atomic).
open class NSStagedMigrationManager: NSObject, @unchecked Sendable {
    /// Mirrors `stages`.
    public private(set) var stages: [NSMigrationStage] = []
    /// Mirrors `container`: during a custom stage's handler, a container with the migrating store loaded
    /// at the stage's current (`willMigrateHandler`) or next (`didMigrateHandler`) model; `nil` otherwise.
    public internal(set) var container: NSPersistentContainer?
    /// Model versions the stages may name besides those found on their own (OpenSwiftData's versioned
    /// schemas, which no bundle holds).
    package var knownModels: [NSManagedObjectModel] = []

    /// Mirrors `init(_:)`.
    public convenience init(_ stages: [NSMigrationStage]) {
        self.init()
        self.stages = stages
    }
}

extension NSStagedMigrationManager {
    /// The metadata of the store at `url`; `nil` when there is none yet (no file, an empty one, or a
    /// named in-memory store, `/dev/null/<name>`, that no coordinator of the process holds).
    private static func existingMetadata(at url: URL) throws -> [String: Any]? {
        if url.path.hasPrefix("/dev/null/") { return try? NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url) }
        guard FileManager.default.fileExists(atPath: url.path),
              (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0 > 0 else { return nil }
        return try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    }

    /// Runs the stages on the SQLite store at `url` until it is at `destination` (nothing for a new file).
    package func migrateStore(at url: URL, options: [AnyHashable: Any]?, to destination: NSManagedObjectModel) throws {
        guard let metadata = try Self.existingMetadata(at: url) else { return }
        var models = StagedModels(destination: destination, stages: stages, known: knownModels)
        var current = try models.model(matching: metadata, url: url)
        var visited = Set<String>()
        var options = options ?? [:]
        options[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        while current.versionChecksum != destination.versionChecksum {
            guard visited.insert(current.versionChecksum).inserted else {
                throw CoreDataError(NSMigrationError, "The migration stages lead back to model version \(Self.name(current)): they never reach the current model.")
            }
            current = try step(from: current, models: &models, url: url, options: options)
        }
    }

    /// One stage from `current`; returns the model the store is at after it.
    private func step(from current: NSManagedObjectModel, models: inout StagedModels, url: URL, options: [AnyHashable: Any]) throws -> NSManagedObjectModel {
        let checksum = current.versionChecksum
        for stage in stages {
            if let stage = stage as? NSLightweightMigrationStage, let index = stage.versionChecksums.firstIndex(of: checksum),
               index < stage.versionChecksums.count - 1 {
                let last = stage.versionChecksums[stage.versionChecksums.count - 1]
                guard let next = models.model(checksum: last) else {
                    throw CoreDataError(NSMigrationError, "The lightweight stage \(stage.label ?? "(no label)") names the model version \(last), which no model here has.")
                }
                try NSPersistentStoreCoordinator.migrateStoreLightweight(at: url, options: options, from: current, to: next)
                return next
            }
            if let stage = stage as? NSCustomMigrationStage, stage.currentModel?.versionChecksum == checksum {
                return try run(stage, url: url, options: options)
            }
        }
        throw CoreDataError(NSMigrationMissingMappingModelError,
                            "No migration stage leads on from the store's model version \(Self.name(current)) (checksum \(checksum)); the store at \(url.path) was left in that version.",
                            userInfo: [NSFilePathErrorKey: url.path])
    }

    /// A custom stage: its will-handler at the current model, the migration, its did-handler at the next.
    private func run(_ stage: NSCustomMigrationStage, url: URL, options: [AnyHashable: Any]) throws -> NSManagedObjectModel {
        let current = try stage.currentModel.model(for: stage)
        let next = try stage.nextModel.model(for: stage)
        if let handler = stage.willMigrateHandler { try withContainer(current, url: url, options: options) { try handler(self, stage) } }
        try NSPersistentStoreCoordinator.migrateStoreLightweight(at: url, options: options, from: current, to: next)
        if let handler = stage.didMigrateHandler { try withContainer(next, url: url, options: options) { try handler(self, stage) } }
        return next
    }

    /// Runs `body` with ``container`` holding the store, loaded at `model` without migration.
    private func withContainer(_ model: NSManagedObjectModel, url: URL, options: [AnyHashable: Any], _ body: () throws -> Void) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        for (key, value) in options { if let key = key as? String { description.setOption(value as? NSObject, forKey: key) } }
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        self.container = container
        defer {
            self.container = nil
            let coordinator = container.persistentStoreCoordinator
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
        try body()
    }

    static func name(_ model: NSManagedObjectModel) -> String { model.versionName ?? model.versionChecksum }
}

/// The models a staged migration can name: the stages' references, the destination model's versions,
/// and (read only when needed) the versions of every model in the app's bundles.
struct StagedModels {
    private var byChecksum: [String: NSManagedObjectModel] = [:]
    private var searchedBundles = false

    init(destination: NSManagedObjectModel, stages: [NSMigrationStage], known: [NSManagedObjectModel] = []) {
        add([destination] + destination.versions + known)
        for case let stage as NSCustomMigrationStage in stages {
            add([stage.currentModel, stage.nextModel].compactMap { try? $0?.model(for: stage) })
        }
    }

    private mutating func add(_ models: [NSManagedObjectModel]) {
        for model in models where byChecksum[model.versionChecksum] == nil { byChecksum[model.versionChecksum] = model }
    }

    private mutating func searchBundles() {
        guard !searchedBundles else { return }
        searchedBundles = true
        for folder in ModelBundleLookup.modelFolders(in: Bundle.allBundles) {
            guard let model = try? NSManagedObjectModel(validatingContentsOf: folder) else { continue }
            add(model.versions.isEmpty ? [model] : model.versions)
        }
    }

    mutating func model(checksum: String) -> NSManagedObjectModel? {
        if let model = byChecksum[checksum] { return model }
        searchBundles()
        return byChecksum[checksum]
    }

    /// The model a store's metadata was written with (by its checksum, else its entity version hashes).
    mutating func model(matching metadata: [String: Any], url: URL) throws -> NSManagedObjectModel {
        func find() -> NSManagedObjectModel? {
            if let checksum = metadata[NSPersistentStoreModelVersionChecksumKey] as? String, let model = byChecksum[checksum] { return model }
            return byChecksum.values.sorted { $0.versionChecksum < $1.versionChecksum }
                .first { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }
        }
        if let model = find() { return model }
        searchBundles()
        if let model = find() { return model }
        throw CoreDataError(NSMigrationMissingSourceModelError,
                            "No model the migration stages name, and no version of the model, matches the store at \(url.path); it was left untouched.",
                            userInfo: [NSFilePathErrorKey: url.path])
    }
}

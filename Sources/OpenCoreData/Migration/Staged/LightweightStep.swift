import Foundation

extension NSPersistentStoreCoordinator {
    /// Migrates the SQLite store at `url` from `source` to `destination` by the mapping Core Data infers
    /// between them (`NSMigrationMissingMappingModelError`, with the inference's error underneath, when
    /// there is none): the objects are migrated into a new file beside it, which then replaces the store
    /// in one transaction; if anything fails the store is left as it was.
    static func migrateStoreLightweight(at url: URL, options: [AnyHashable: Any], from source: NSManagedObjectModel,
                                        to destination: NSManagedObjectModel) throws {
        guard source.versionChecksum != destination.versionChecksum else { return }
        let mapping: NSMappingModel
        do {
            mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        } catch {
            throw CoreDataError(NSMigrationMissingMappingModelError,
                                "Can't find or automatically infer a mapping model from \(NSStagedMigrationManager.name(source)) to \(NSStagedMigrationManager.name(destination)) for the store at \(url.path): \(error.localizedDescription)",
                                userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migrating-\(UUID().uuidString)")
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: destination)
        defer { try? coordinator.destroyPersistentStore(at: temporary, type: .sqlite) }
        var sourceOptions = options
        sourceOptions[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        try NSMigrationManager(sourceModel: source, destinationModel: destination)
            .migrateStore(from: url, type: .sqlite, options: sourceOptions, mapping: mapping, to: temporary, type: .sqlite)
        try coordinator.replacePersistentStore(at: url, destinationOptions: nil, withPersistentStoreFrom: temporary, sourceOptions: nil, type: .sqlite)
    }
}

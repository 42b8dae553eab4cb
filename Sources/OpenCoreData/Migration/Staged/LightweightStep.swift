import Foundation

extension NSPersistentStoreCoordinator {
    /// Migrates the SQLite store at `url` from `source` to `destination` by lightweight (inferred)
    /// migration, in place and in one transaction (`InPlaceMigration`): the store is added to a
    /// coordinator of `destination` with the migration options, `source` given as the store's model.
    static func migrateStoreLightweight(at url: URL, options: [AnyHashable: Any], from source: NSManagedObjectModel,
                                        to destination: NSManagedObjectModel) throws {
        guard source.versionChecksum != destination.versionChecksum else { return }
        var migrating = options
        migrating[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        migrating[NSMigratePersistentStoresAutomaticallyOption] = true
        migrating[NSInferMappingModelAutomaticallyOption] = true
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: destination)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: migrating,
                                                       knownSource: source)
        try coordinator.remove(store)
    }
}

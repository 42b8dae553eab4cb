import Foundation

extension NSManagedObjectModel {
    /// The entities a store added with `configuration` keeps: every entity for `nil` or Core Data's default
    /// configuration name, else the configuration's entities with the rest of their inheritance
    /// hierarchies (a hierarchy shares one table, so a store holds all of it or none of it).
    /// A name the model does not have throws `NSPersistentStoreOperationError`, naming the model's.
    func storedEntities(forConfigurationName configuration: String?) throws -> [NSEntityDescription] {
        guard let named = entities(forConfigurationName: Self.configurationName(configuration)) else {
            let known = configurations.isEmpty ? "none" : configurations.joined(separator: ", ")
            throw CoreDataError(NSPersistentStoreOperationError,
                                "The model has no configuration named \(configuration ?? ""); its configurations: \(known).")
        }
        let roots = Set(named.compactMap { $0.layout?.rootEntityID })
        return entities.filter { roots.contains($0.layout.rootEntityID) }
    }

    /// A store's configuration name as the model reads it: Core Data's `PF_DEFAULT_CONFIGURATION_NAME`
    /// (what a store added without one reports) is the default configuration, every entity.
    static func configurationName(_ name: String?) -> String? {
        name == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : name
    }
}

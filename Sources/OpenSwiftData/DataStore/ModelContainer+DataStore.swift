import Foundation
import OpenCoreData

extension ModelContainer {
    /// Mirrors `init(for:configurations:)` with any store configurations: ``ModelConfiguration``s open
    /// OpenSwiftData's own stores, others their ``DataStore`` (docs/SwiftData.md, "Custom stores").
    public convenience init(for schema: Schema, configurations: [any DataStoreConfiguration]) throws {
        try self.init(schema, migrationPlan: nil, stores: configurations)
    }

    /// Mirrors `init(for:configurations:)` with model types and any store configurations.
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: any DataStoreConfiguration...) throws {
        try self.init(Schema(forTypes), migrationPlan: nil, stores: configurations)
    }

    /// The bridge of the custom store with this identifier, if any.
    func dataStoreBridge(identifier: String?) -> (any DataStoreBridging)? {
        guard let identifier, !dataStoreBridges.isEmpty else { return nil }
        return dataStoreBridges.first { $0.dataStoreIdentifier == identifier }
    }

    /// The bridge of the custom store that holds an entity, if a custom store does.
    func dataStoreBridge(forEntity name: String) -> (any DataStoreBridging)? {
        for store in persistentStoreCoordinator.persistentStores {
            guard let bridge = store as? any DataStoreBridging else { continue }
            let configuration = store.configurationName
            let entities = configuration == "Default" ? managedObjectModel.entities : managedObjectModel.entities(forConfigurationName: configuration) ?? []
            if entities.contains(where: { $0.name == name }) { return bridge }
        }
        return nil
    }

    /// Opens a custom configuration's data store and adds it to the coordinator through a bridge.
    func openDataStore<C: DataStoreConfiguration>(_ configuration: C) throws {
        try configuration.validate()
        guard let own = configuration as? C.Store.Configuration else {
            throw SwiftDataError(.loadIssueModelContainer, "\(C.self) names \(C.Store.self) as its store, whose configuration type is \(C.Store.Configuration.self)")
        }
        let store: C.Store
        do { store = try C.Store(own, migrationPlan: migrationPlan) } catch {
            throw SwiftDataError(.loadIssueModelContainer, "the data store of configuration \(configuration.name) did not open: \(error)")
        }
        typealias Bridge = DataStoreBridge<C.Store>
        NSPersistentStoreCoordinator.registerStoreClass(Bridge.self, forStoreType: Bridge.storeType)
        let url = URL(string: "x-datastore://\(configuration.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "store")")!
        do {
            try persistentStoreCoordinator.addPersistentStore(ofType: Bridge.storeType, configurationName: configuration.schema == nil ? nil : configuration.name,
                                                              at: url, options: [Bridge.storeOption: BridgeSetup(store: store, schema: schema)])
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "the data store of configuration \(configuration.name) did not join the container: \(error)")
        }
    }
}

extension ModelConfiguration: DataStoreConfiguration {
    /// Mirrors `ModelConfiguration.Store`: the store a model configuration opens.
    public typealias Store = DefaultStore
}

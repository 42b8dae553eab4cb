import Foundation

/// Which of a coordinator's stores holds each entity hierarchy, by the root's entity number: a store
/// added with a configuration holds that configuration's hierarchies, one added without holds them all.
/// A hierarchy is held by one store at most, so a key (root and primary key) names one row of one store.
struct StoreRoutes {
    private var byRoot: [Int: NSPersistentStore] = [:]
    /// The store, when one store holds every hierarchy of the model (nothing to route).
    private(set) var onlyStore: NSPersistentStore?

    /// The roots a store added with `configuration` would hold; throws, before anything is opened, when
    /// the model has no such configuration or a store already holds one of those hierarchies.
    func checkAdding(_ configuration: String?, of model: NSManagedObjectModel, url: URL?) throws -> [Int] {
        let name = NSManagedObjectModel.configurationName(configuration)
        let roots = Set(try model.storedEntities(forConfigurationName: name).map { $0.layout.rootEntityID }).sorted()
        let taken = roots.filter { byRoot[$0] != nil }
        guard taken.isEmpty else {
            let names = taken.compactMap { model.entity(number: $0)?.name }.joined(separator: ", ")
            let holder = byRoot[taken[0]]!
            throw CoreDataError(NSPersistentStoreOperationError,
                                "The store at \(url?.path ?? "(in memory)") (configuration \(name ?? "Default")) would hold \(names), which the store at \(holder.url?.path ?? "(in memory)") (configuration \(holder.configurationName)) holds already: an entity lives in one store of a coordinator here (docs/Store.md).",
                                userInfo: url.map { [NSFilePathErrorKey: $0.path] } ?? [:])
        }
        return roots
    }

    mutating func add(_ store: NSPersistentStore, roots: [Int], of model: NSManagedObjectModel) {
        for root in roots { byRoot[root] = store }
        update(model)
    }

    mutating func remove(_ store: NSPersistentStore, of model: NSManagedObjectModel) {
        byRoot = byRoot.filter { $0.value !== store }
        update(model)
    }

    private mutating func update(_ model: NSManagedObjectModel) {
        let first = byRoot.values.first
        let everyRoot = byRoot.count == model.entities.count { $0.superentity == nil }
        onlyStore = everyRoot && byRoot.values.allSatisfy { $0 === first } ? first : nil
    }

    /// The store that holds a hierarchy.
    func store(root: Int) -> NSPersistentStore? { byRoot[root] }
}

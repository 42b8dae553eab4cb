import Foundation

/// Which of a coordinator's stores hold each entity hierarchy, by the root's entity number: a store
/// added with a configuration holds that configuration's hierarchies, one added without holds them all.
/// Configurations may overlap, as in Core Data: several stores may hold one hierarchy (`holders`, in the
/// order they were added; an insert goes to the first unless `assign(_:to:)` chose another).
///
/// Each store has a tag (`NSPersistentStore.keyTag`), and its rows' keys have the key root
/// `ObjectKey.keyRoot(root, tag:)`: a key names one row of one store. A store's tag is the smallest
/// that no store holding one of its hierarchies has, so that stores that do not overlap (and a store
/// added after the one it replaces was removed) keep tag 0, whose key roots are the entity numbers.
struct StoreRoutes {
    /// The stores holding each hierarchy, in the order added.
    private var holders: [Int: [NSPersistentStore]] = [:]
    /// The store of each key root (hierarchy and tag).
    private var byKeyRoot: [Int: NSPersistentStore] = [:]
    /// The store, when one store holds every hierarchy of the model (nothing to route).
    private(set) var onlyStore: NSPersistentStore?
    /// Whether some hierarchy is held by more than one store.
    private(set) var overlaps = false

    /// The roots a store added with `configuration` would hold; throws, before anything is opened, when
    /// the model has no such configuration.
    func checkAdding(_ configuration: String?, of model: NSManagedObjectModel, url: URL?) throws -> [Int] {
        let name = NSManagedObjectModel.configurationName(configuration)
        return Set(try model.storedEntities(forConfigurationName: name).map { $0.layout.rootEntityID }).sorted()
    }

    /// Adds a store holding `roots`, giving it its tag.
    mutating func add(_ store: NSPersistentStore, roots: [Int], of model: NSManagedObjectModel) {
        let taken = Set(roots.flatMap { holders[$0] ?? [] }.map(\.keyTag))
        store.keyTag = (0...).first { !taken.contains($0) }!
        for root in roots {
            holders[root, default: []].append(store)
            byKeyRoot[ObjectKey.keyRoot(root, tag: store.keyTag)] = store
        }
        update(model)
    }

    mutating func remove(_ store: NSPersistentStore, of model: NSManagedObjectModel) {
        for root in holders.keys { holders[root]!.removeAll { $0 === store } }
        holders = holders.filter { !$0.value.isEmpty }
        byKeyRoot = byKeyRoot.filter { $0.value !== store }
        update(model)
    }

    private mutating func update(_ model: NSManagedObjectModel) {
        overlaps = holders.values.contains { $0.count > 1 }
        let first = byKeyRoot.values.first
        let everyRoot = holders.count == model.entities.count { $0.superentity == nil }
        onlyStore = everyRoot && !overlaps && first?.keyTag == 0 && byKeyRoot.values.allSatisfy { $0 === first } ? first : nil
    }

    /// The store of a key root (a hierarchy's root entity number with a store's tag).
    func store(keyRoot: Int) -> NSPersistentStore? { byKeyRoot[keyRoot] }

    /// The stores that hold a hierarchy, in the order they were added.
    func stores(root: Int) -> [NSPersistentStore] { holders[ObjectKey.entityRoot(root)] ?? [] }
}

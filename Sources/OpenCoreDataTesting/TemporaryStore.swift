import Foundation
import OpenCoreData

/// A fresh SQLite file in a temporary directory for a test, removed by `cleanUp()`.
public struct TemporaryStore: Sendable {
    /// The directory holding the store file (and its journal, external files…).
    public let directory: URL
    /// The store file's URL inside `directory`.
    public var url: URL { directory.appendingPathComponent("Test.sqlite") }

    /// A new, empty directory under the temporary directory.
    public init() {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Removes the directory and everything in it.
    public func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// A container on this file with the given model (the seed's Products model unless given), its store loaded.
    public func container(_ model: NSManagedObjectModel = SeedModel.make()) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Test", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }
}

extension TemporaryStore {
    /// A new store of `count` seed products with random names (six, so many ties) and prices (0…40), every
    /// `favoriteEvery`th a `FavoriteProducts` when given, saved; with the container that wrote it.
    public static func randomProducts(_ count: Int, seed: UInt64, favoriteEvery: Int? = nil) throws -> (TemporaryStore, NSPersistentContainer) {
        let store = TemporaryStore()
        let container = try store.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var rng = SeededRandom(seed: seed)
            for i in 0..<count {
                let p = favoriteEvery.map { i % $0 == $0 / 2 } == true ? FavoriteProducts(context: context) : Products(context: context)
                p.name = rng.pick(Array(SeedModel.productNames.prefix(6)))
                p.price = Int32(rng.int(0...40))
            }
            try context.save()
        }
        return (store, container)
    }
}

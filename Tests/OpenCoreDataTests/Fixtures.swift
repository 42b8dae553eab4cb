import Foundation
import OpenCoreData
import OpenCoreDataTesting

func makeProductsModel() -> NSManagedObjectModel { SeedModel.make() }

/// A fresh SQLite file in a temporary directory, removed by `cleanUp()`.
struct TemporaryStore {
    let directory: URL
    var url: URL { directory.appendingPathComponent("Test.sqlite") }

    init() {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// A container on this file with the given model.
    func container(_ model: NSManagedObjectModel = makeProductsModel()) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Test", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }
}

let productNames = SeedModel.productNames

@discardableResult
func insertProducts(_ context: NSManagedObjectContext, count: Int, seed: UInt64 = 42) -> [Products] {
    SeedModel.insertProducts(context, count: count, seed: seed)
}

import Foundation
import OpenCoreData

/// Seed 000's model: `Products` (name, price) and its subentity `FavoriteProducts`.
class Products: NSManagedObject {
    var name: String? {
        get { value(forKey: "name") as? String }
        set { setValue(newValue, forKey: "name") }
    }
    var price: Int32 {
        get { (value(forKey: "price") as? NSNumber)?.int32Value ?? 0 }
        set { setValue(newValue, forKey: "price") }
    }
}

final class FavoriteProducts: Products {}

func makeProductsModel() -> NSManagedObjectModel {
    let favorite = NSEntityDescription(name: "FavoriteProducts", managedObjectClassName: NSStringFromClass(FavoriteProducts.self))
    let products = NSEntityDescription(
        name: "Products", managedObjectClassName: NSStringFromClass(Products.self),
        properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false),
            NSAttributeDescription(name: "price", type: .integer32AttributeType, optional: false, defaultValue: 0),
        ],
        subentities: [favorite])
    return NSManagedObjectModel(entities: [products])
}

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

let productNames = ["Йогурт", "Молоко", "Творог", "Кефир", "Колбаса «Молочная»", "Колбаса «Докторская»", "Сыр", "Масло"]

@discardableResult
func insertProducts(_ context: NSManagedObjectContext, count: Int, seed: UInt64 = 42) -> [Products] {
    var state = seed
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    return (0..<count).map { _ in
        let p = Products(context: context)
        p.name = productNames[Int(next() % UInt64(productNames.count))]
        p.price = Int32(next() % 1000)
        return p
    }
}

import OpenCoreData

/// Seed 000's `Products` entity (name, price). Linux has no `@NSManaged`, so the accessors go through
/// `value(forKey:)`.
open class Products: NSManagedObject {
    /// The product's name.
    public var name: String? {
        get { value(forKey: "name") as? String }
        set { setValue(newValue, forKey: "name") }
    }
    /// The price, below 1000 in the article.
    public var price: Int32 {
        get { (value(forKey: "price") as? NSNumber)?.int32Value ?? 0 }
        set { setValue(newValue, forKey: "price") }
    }
}

/// Seed 000's `FavoriteProducts`, a subentity of `Products`.
public final class FavoriteProducts: Products {}

/// Seed 000's model and data, shared by the demo, the tests and the benchmarks.
public enum SeedModel {
    /// `Products` (name, price) with its subentity `FavoriteProducts`.
    public static func make() -> NSManagedObjectModel {
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

    /// The article's eight products; two are sausages in «» quotes.
    public static let productNames = ["Йогурт", "Молоко", "Творог", "Кефир", "Колбаса «Молочная»", "Колбаса «Докторская»", "Сыр", "Масло"]

    /// Inserts `count` products with seeded random names and prices below 1000.
    @discardableResult
    public static func insertProducts(_ context: NSManagedObjectContext, count: Int, seed: UInt64 = 42) -> [Products] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { _ in
            let p = Products(context: context)
            p.name = rng.pick(productNames)
            p.price = Int32(rng.int(0...999))
            return p
        }
    }
}

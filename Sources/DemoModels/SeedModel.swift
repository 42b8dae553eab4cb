import Foundation
import OpenCoreData

// Seed 000's model as a Core Data app keeps it: Resources/Products.xcdatamodeld, in Xcode's format, and
// the classes its entities name (`representedClassName="Products"`, found in this module because the
// model is read from this target's resource bundle; docs/ModelClasses.md, "Finding the class"), written as
// Xcode's "Manual/None" codegen writes them, `@Managed` standing for `@NSManaged`.

/// Seed 000's `Products` entity (name, price).
open class Products: NSManagedObject {
    /// The product's name (a required attribute: a save without one fails validation).
    @Managed public var name: String?
    /// The price, below 1000 in the article (Integer 32, default 0).
    @Managed public var price: Int32
}

/// Seed 000's `FavoriteProducts`, a subentity of `Products`.
public final class FavoriteProducts: Products {}

/// Seed 000's model and data, shared by the demo, the tests and the benchmarks.
public enum SeedModel {
    /// `Products` (name, price) with its subentity `FavoriteProducts`: version 1 (`Products`) of the
    /// target's `Products.xcdatamodeld`, the model the seed article describes and the tests, golden SQL
    /// and benchmarks are written against. Each call reads the file again and returns a new model
    /// instance: a model belongs to the coordinators that load it, and callers give each container its own.
    public static func make() -> NSManagedObjectModel { version("Products") }

    /// The current version of `Products.xcdatamodeld`, version 2 (`Products 2`: an optional `category`
    /// and a fetch index on name and price), what the `products` demo opens its store with: a store made
    /// with version 1 is migrated when it loads.
    public static func makeCurrent() -> NSManagedObjectModel { read() }

    /// A version of the model by name (`Products`, `Products 2`).
    public static func version(_ name: String) -> NSManagedObjectModel {
        let current = read()
        guard let model = current.versions.first(where: { $0.versionName == name }) else {
            fatalError("DemoModels: Products.xcdatamodeld has no version \(name)")
        }
        return model
    }

    private static func read() -> NSManagedObjectModel {
        guard let url = Bundle.module.url(forResource: "Products", withExtension: "xcdatamodeld") else {
            fatalError("DemoModels: Products.xcdatamodeld is missing from the resource bundle \(Bundle.module.bundleURL.path)")
        }
        do {
            return try NSManagedObjectModel(validatingContentsOf: url)
        } catch {
            fatalError("DemoModels: Products.xcdatamodeld does not read: \(error)")
        }
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

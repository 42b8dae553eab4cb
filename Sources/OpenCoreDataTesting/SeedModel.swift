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
    /// `Products` (name, price) with its subentity `FavoriteProducts`, read from the target's
    /// `Products.xcdatamodeld`. Each call reads the file again and returns a new model instance, as a
    /// model built in code per call did: a model belongs to the coordinators that load it, and callers
    /// (tests, benchmarks) give each container its own.
    public static func make() -> NSManagedObjectModel {
        guard let url = Bundle.module.url(forResource: "Products", withExtension: "xcdatamodeld") else {
            fatalError("OpenCoreDataTesting: Products.xcdatamodeld is missing from the resource bundle \(Bundle.module.bundleURL.path)")
        }
        do {
            return try NSManagedObjectModel(validatingContentsOf: url)
        } catch {
            fatalError("OpenCoreDataTesting: Products.xcdatamodeld does not read: \(error)")
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

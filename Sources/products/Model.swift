import OpenCoreData

/// Seed 000's entities. Linux has no `@NSManaged`, so the accessors go through `value(forKey:)`.
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

func makeModel() -> NSManagedObjectModel {
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
let productNames = ["Йогурт", "Молоко", "Творог", "Кефир", "Колбаса «Молочная»", "Колбаса «Докторская»", "Сыр", "Масло"]

/// SplitMix64, so a seed gives the same products on every machine.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

import Foundation
import OpenCoreData
import OpenSwiftData

/// The product as a SwiftData app declares it.
@Model final class Product {
    var name: String
    var price: Double
    var quantity: Int

    init(name: String, price: Double, quantity: Int) {
        self.name = name
        self.price = price
        self.quantity = quantity
    }
}

/// The same product as a Core Data app declares it.
final class ManagedProduct: NSManagedObject {
    @Managed var name: String
    @Managed var price: Double
    @Managed var quantity: Int64
}

/// ManagedProduct's model: the entity SwiftData makes for Product, under the class's name.
func managedProductModel() -> NSManagedObjectModel {
    NSManagedObjectModel(entities: [NSEntityDescription(name: "ManagedProduct", managedObjectClassName: "ManagedProduct", properties: [
        NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false),
        NSAttributeDescription(name: "price", type: .doubleAttributeType, optional: false),
        NSAttributeDescription(name: "quantity", type: .integer64AttributeType, optional: false),
    ])])
}

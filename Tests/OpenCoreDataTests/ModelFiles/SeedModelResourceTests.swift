import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Seed 000's model as the repository ships it: OpenCoreDataTesting's `Products.xcdatamodeld` resource,
/// read by `SeedModel.make()`, whose entities find the `@Managed` classes `Products` and
/// `FavoriteProducts` of DemoModels.
@Suite("Seed model: Products.xcdatamodeld resource")
struct SeedModelResourceTests {
    @Test func theModelIsReadFromTheResourceFile() throws {
        let model = SeedModel.make()
        #expect(model.versionName == "Products", "only a model read from a .xcdatamodeld has a version name")
        #expect(model.versions.count == 1)
        #expect(model.entities.map { $0.name ?? "?" } == ["FavoriteProducts", "Products"], "Xcode's order: by name")
        let products = try #require(model.entitiesByName["Products"])
        let favorite = try #require(model.entitiesByName["FavoriteProducts"])
        #expect(favorite.superentity === products && products.subentities.map(\.name) == ["FavoriteProducts"])
        #expect(products.managedObjectClassName == "Products" && favorite.managedObjectClassName == "FavoriteProducts",
                "kept as Xcode writes it, without a module")
        let name = try #require(products.attributesByName["name"])
        let price = try #require(products.attributesByName["price"])
        #expect(name.attributeType == .stringAttributeType && !name.isOptional)
        #expect(price.attributeType == .integer32AttributeType && !price.isOptional && (price.defaultValue as? NSNumber)?.int32Value == 0)
        #expect(favorite.properties.map(\.name) == ["name", "price"], "inherited from Products")
        #expect(SeedModel.make() !== model, "each call reads a new model, as each container needs its own")
    }

    /// The entities resolve to OpenCoreDataTesting's classes (through the resource bundle's module), and
    /// `Products` declares its properties with `@Managed`.
    @Test func theEntitiesFindTheManagedClasses() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(SeedModel.make())
        let context = container.viewContext
        let product = NSEntityDescription.insertNewObject(forEntityName: "Products", into: context)
        let favorite = NSEntityDescription.insertNewObject(forEntityName: "FavoriteProducts", into: context)
        #expect(type(of: product) == Products.self && NSStringFromClass(type(of: product)) == "DemoModels.Products")
        #expect(type(of: favorite) == FavoriteProducts.self)
        let members = ManagedClasses.members(of: Products.self).map(\.declaration).sorted()
        #expect(members == ["name: Optional<String>", "price: Int32"], "\(members)")
        #expect(ManagedClasses.members(of: FavoriteProducts.self).count == 2, "inherited")
        context.delete(product)
        context.delete(favorite)
    }

    /// Typed `@Managed` properties through a save and a refetch in another context.
    @Test func typedPropertiesRoundTripThroughASave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(SeedModel.make())
        let context = container.viewContext
        let kefir = Products(context: context)
        #expect(kefir.price == 0 && kefir.name == nil, "the model's default price; no name yet")
        kefir.name = "Кефир"
        kefir.price = 89
        let cheese = FavoriteProducts(context: context)
        cheese.name = "Сыр"
        cheese.price = 999
        #expect(kefir.value(forKey: "price") as? Int == 89 && kefir.changedValues()["name"] as? String == "Кефир")
        try context.save()

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
            let fetched = try other.fetch(request)
            #expect(fetched.map(\.name) == ["Кефир", "Сыр"] && fetched.map(\.price) == [89, 999])
            #expect(fetched.last is FavoriteProducts)
            fetched[0].price = 95
            #expect(fetched[0].value(forKey: "price") as? Int32 == 95)
            try other.save()
        }
        context.refresh(kefir, mergeChanges: false)
        #expect(kefir.price == 95)
    }
}

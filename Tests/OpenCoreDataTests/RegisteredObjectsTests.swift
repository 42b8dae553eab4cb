import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// `retainsRegisteredObjects` (issue 51, item 6): a context keeps its changed objects and lets go of the
/// unchanged ones nothing else holds, as Core Data's contexts hold them weakly; uniquing stays whole for
/// every object something holds.
@Suite("Registered objects held weakly")
struct RegisteredObjectsTests {
    /// A store of `count` products, and a new private-queue context on it.
    func products(_ count: Int) throws -> (TemporaryStore, NSPersistentContainer, NSManagedObjectContext) {
        let store = TemporaryStore()
        let container = try store.container()
        insertProducts(container.viewContext, count: count, seed: 3)
        try container.viewContext.save()
        return (store, container, container.newBackgroundContext())
    }

    /// Page `page` (of `size`) of the products in key order.
    func page(_ page: Int, size: Int, batchSize: Int = 0) -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
        request.fetchOffset = page * size
        request.fetchLimit = size
        request.fetchBatchSize = batchSize
        return request
    }

    @Test(arguments: [0, 50])
    func aContextThatDropsWhatItFetchesStaysSmall(batchSize: Int) throws {
        let (store, _, context) = try products(12_000)
        defer { store.cleanUp() }
        try context.performAndWait { () throws in
            #expect(context.retainsRegisteredObjects == false)
            var most = 0
            for n in 0..<12 {
                let fetched = try context.fetch(page(n, size: 1_000, batchSize: batchSize))
                #expect(fetched.count == 1_000)
                // Read some, as an app does (their values are made).
                for product in fetched.prefix(100) { _ = product.name }
                most = max(most, context.registeredObjects.count)
            }
            // At most about two pages: the one fetched, and what the last sweep kept.
            #expect(most <= 2_100, "\(most) objects registered")
        }
    }

    @Test func retainingKeepsEveryObject() throws {
        let (store, _, context) = try products(6_000)
        defer { store.cleanUp() }
        try context.performAndWait { () throws in
            context.retainsRegisteredObjects = true
            for n in 0..<6 { _ = try context.fetch(page(n, size: 1_000)) }
            #expect(context.registeredObjects.count == 6_000)
        }
    }

    @Test func heldObjectsStayTheSameInstances() throws {
        let (store, _, context) = try products(8_000)
        defer { store.cleanUp() }
        try context.performAndWait { () throws in
            // Held by the test: one object of a fetch into an empty context, a whole page of a later one,
            // and an object reached by ID.
            let first = try context.fetch(page(0, size: 1_000))[10]
            let held = try context.fetch(page(1, size: 1_000))
            let byID = context.object(with: try context.fetch(page(2, size: 1_000))[5].objectID)
            for n in 3..<8 { _ = try context.fetch(page(n, size: 1_000)) }
            #expect(try context.fetch(page(0, size: 1_000))[10] === first)
            #expect(try context.fetch(page(1, size: 1_000)).elementsEqual(held, by: ===))
            #expect(try context.fetch(page(2, size: 1_000))[5] === byID)
            #expect(context.registeredObject(for: first.objectID) === first)
        }
    }

    @Test func changedObjectsAreKeptUntilSaved() throws {
        let (store, container, context) = try products(6_000)
        defer { store.cleanUp() }
        var id: NSManagedObjectID?
        try context.performAndWait { () throws in
            do {
                let product = try context.fetch(page(0, size: 1_000))[0]
                product.name = "Changed"
                id = product.objectID
                let deleted = try context.fetch(page(1, size: 1_000))[0]
                context.delete(deleted)
                _ = Products(context: context).name = "Inserted"
            }
            for n in 2..<6 { _ = try context.fetch(page(n, size: 1_000)) }
            #expect(context.updatedObjects.count == 1 && context.deletedObjects.count == 1 && context.insertedObjects.count == 1)
            #expect((context.registeredObject(for: id!) as? Products)?.name == "Changed")
            try context.save()
        }
        let check = container.newBackgroundContext()
        try check.performAndWait { () throws in
            #expect((try check.existingObject(with: id!) as? Products)?.name == "Changed")
            let request = NSFetchRequest<Products>(entityName: "Products")
            #expect(try check.count(for: request) == 6_000)
            request.predicate = NSPredicate(format: "name == %@", "Inserted")
            #expect(try check.count(for: request) == 1)
        }
    }

    /// Seeded: a random mix of fetches, holding, dropping, reading and changing; after each step every
    /// object held is the one a fetch of its row returns, and every change survives to the save.
    @Test(arguments: [11, 12, 13])
    func randomHoldingAndDropping(seed: UInt64) throws {
        let (store, container, context) = try products(3_000)
        defer { store.cleanUp() }
        var random = SeededRandom(seed: seed)
        var expected: [NSManagedObjectID: String] = [:]
        try context.performAndWait { () throws in
            var held: [Products] = []
            for step in 0..<60 {
                let fetched = try context.fetch(page(random.int(0...5), size: 500, batchSize: random.int(0...1) * 40))
                switch random.int(0...3) {
                case 0: held += fetched.prefix(random.int(0...30))
                case 1: held.removeFirst(min(held.count, random.int(0...40)))
                case 2:
                    let product = fetched[random.int(0...(fetched.count - 1))]
                    product.name = "step \(step)"
                    expected[product.objectID] = "step \(step)"
                default: break
                }
                for product in held.shuffled(using: &random).prefix(20) {
                    let again = try #require(context.registeredObject(for: product.objectID))
                    #expect(again === product, "seed \(seed), step \(step)")
                }
            }
            try context.save()
        }
        let check = container.newBackgroundContext()
        try check.performAndWait { () throws in
            for (id, name) in expected {
                #expect((try check.existingObject(with: id) as? Products)?.name == name, "seed \(seed)")
            }
        }
    }
}

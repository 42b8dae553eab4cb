import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Programming errors that Core Data raises where its Swift signature cannot throw: we trap, and the
/// trap's message says what was wrong. Checked in a child process (Swift Testing exit tests).
@Suite("Trap messages")
struct TrapMessageTests {
    /// A controller over 3 products, sorted by name, fetched.
    static func fetchedController() throws -> NSFetchedResultsController<Products> {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        insertProducts(context, count: 3)
        try context.save()
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        return controller
    }

    static func stderr(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test func objectAtANegativeRowTrapsWithTheControllersMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Self.fetchedController().object(at: IndexPath(row: -1, section: 0))
        }
        #expect(Self.stderr(result).contains("no object at index -1 in section at index 0"))
    }

    @Test func objectAtANegativeSectionTrapsWithTheControllersMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Self.fetchedController().object(at: IndexPath(row: 0, section: -1))
        }
        #expect(Self.stderr(result).contains("no section at index -1"))
    }

    @Test func objectPastTheEndTrapsWithTheControllersMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Self.fetchedController().object(at: IndexPath(row: 3, section: 0))
        }
        #expect(Self.stderr(result).contains("no object at index 3 in section at index 0"))
        let section = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Self.fetchedController().object(at: IndexPath(row: 0, section: 1))
        }
        #expect(Self.stderr(section).contains("no section at index 1"))
    }

    @Test func objectInRangeDoesNotTrap() throws {
        let controller = try Self.fetchedController()
        #expect(controller.object(at: IndexPath(row: 2, section: 0)) === controller.fetchedObjects?.last)
    }

    @Test func sortingManagedObjectsByAnUnknownKeyTrapsNamingEntityAndKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let objects = try Self.fetchedController().fetchedObjects ?? []
            _ = objects.sorted(using: [NSSortDescriptor(key: "nmae", ascending: true)])
        }
        let text = Self.stderr(result)
        #expect(text.contains("Products"))
        #expect(text.contains("not key value coding-compliant for the key \"nmae\""))
    }

    @Test func sortingManagedObjectsByAnUnknownKeyThrowsInTheValidatingForm() throws {
        let controller = try Self.fetchedController()
        let objects = controller.fetchedObjects ?? []
        #expect { try objects.sorted(validatingUsing: [NSSortDescriptor(key: "nmae", ascending: true)]) } throws: {
            "\($0)".contains("Products") && "\($0)".contains("\"nmae\"")
        }
        let byPrice = try objects.sorted(validatingUsing: [NSSortDescriptor(key: "price", ascending: false)])
        #expect(byPrice.map(\.price) == objects.map(\.price).sorted(by: >))
    }

    /// A coordinator made directly traps on an invalid model, as Core Data raises; a container reports
    /// the same error through `loadPersistentStores` (EverydayBehaviourTests).
    @Test func aCoordinatorTrapsOnAnInvalidModelNamingTheProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let item = NSEntityDescription(name: "Item", properties: [NSAttributeDescription(name: "first name", type: .stringAttributeType)])
            _ = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel(entities: [item]))
        }
        let text = Self.stderr(result)
        #expect(text.contains("entity Item"))
        #expect(text.contains("\"first name\""))
    }

    /// `price < 500`, archived and decoded (so refused until `allowEvaluation()`).
    static func decodedPriceBelow500() throws -> NSPredicate {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSPredicate(format: "price < 500"), requiringSecureCoding: true)
        return try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSComparisonPredicate.self, from: data))
    }

    /// A predicate decoded from an archive refuses evaluation until `allowEvaluation()` (Apple's secure
    /// coding model) on a managed object passed as one too: the compiled form's fast path
    /// (`evaluate(with: NSManagedObject)`) checks the gate before it reads the object.
    @Test func aDecodedPredicateTrapsOnAManagedObjectUntilAllowed() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let product: Products = try #require(try Self.fetchedController().fetchedObjects?.first)
            _ = try Self.decodedPriceBelow500().evaluate(with: product)
        }
        #expect(Self.stderr(result).contains("call allowEvaluation() before evaluating it"))

        let products = try #require(try Self.fetchedController().fetchedObjects)
        let decoded = try Self.decodedPriceBelow500()
        #expect(throws: PredicateEvaluationError.self) { try decoded.evaluate(validating: products[0]) }
        decoded.allowEvaluation()
        #expect(products.map { decoded.evaluate(with: $0) } == products.map { $0.price < 500 })
    }
}

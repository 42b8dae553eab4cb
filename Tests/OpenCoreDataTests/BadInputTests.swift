import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Bad input gets a clear error on every path, and loses nothing (issue 11).
@Suite("Bad input: clear errors")
struct BadInputTests {
    @Test func anUnbalancedRegularExpressionFailsTheFetchAsItFailsInMemory() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        insertProducts(context, count: 3)
        try context.save()
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.predicate = NSPredicate(format: "name MATCHES %@", "b)|(c")
        #expect { try context.fetch(request) } throws: { "\($0)".contains("b)|(c") }
        #expect(throws: (any Error).self) { try request.predicate!.evaluate(validating: ["name": "abc"]) }
    }

    @Test func anUnknownSectionNameKeyPathFailsPerformFetch() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            for path in ["nonsense", "group.name", ""] {
                let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                            sectionNameKeyPath: path, cacheName: nil)
                let error = try #require(throws: CoreDataError.self) { try controller.performFetch() }
                #expect(error.code == NSCoreDataError)
                #expect(error.message == "keypath \(path) not found in entity Item (sectionNameKeyPath)")
                #expect(controller.sections == nil)
            }
        }
    }
}

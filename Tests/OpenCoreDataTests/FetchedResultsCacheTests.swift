import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The third mode of seeds 000/004: a delegate plus `cacheName`.
@Suite("Fetched results cache file")
struct FetchedResultsCacheTests {
    /// A controller over the products, grouped by name, with a cache; runs `body` on the context's queue.
    func withController<R>(_ container: NSPersistentContainer, cache: String, predicate: NSPredicate? = nil,
                           _ body: (NSFetchedResultsController<Products>, NSManagedObjectContext) throws -> R) throws -> R {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.predicate = predicate
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: false)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "name", cacheName: cache)
            return try body(controller, context)
        }
    }

    func layout(_ controller: NSFetchedResultsController<Products>) -> [String] {
        (controller.sections ?? []).map { s in
            "\(s.name)/\(s.indexTitle ?? "-"): " + (s.objects as! [Products]).map { "\($0.objectID.uriRepresentation().lastPathComponent)=\($0.price)" }.joined(separator: ",")
        }
    }

    func queries(_ container: NSPersistentContainer) -> Int { container.persistentStoreCoordinator.persistentStores[0].queryCount }

    @Test func performFetchWritesTheCacheAndDeleteCacheRemovesIt() throws {
        let store = TemporaryStore(), name = "ocd-test-\(UUID().uuidString)"
        defer { store.cleanUp() }
        let container = try store.container()
        try container.viewContext.performAndWait { insertProducts(container.viewContext, count: 30); try container.viewContext.save() }
        try withController(container, cache: name) { controller, _ in try controller.performFetch() }
        let file = FetchedResultsCache.directory.appendingPathComponent("\(name).json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"sectionNameKeyPath\":\"name\""))
        NSFetchedResultsController<Products>.deleteCache(withName: name)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aMatchingCacheIsLoadedWithoutFetchingAndTracksChanges() throws {
        let store = TemporaryStore(), name = "ocd-test-\(UUID().uuidString)"
        defer { store.cleanUp(); NSFetchedResultsController<Products>.deleteCache(withName: name) }
        do {
            let container = try store.container()
            try container.viewContext.performAndWait { insertProducts(container.viewContext, count: 60); try container.viewContext.save() }
        }
        // First launch: fetch and write the cache. Second launch (a new coordinator): load it.
        let expected = try withController(try store.container(), cache: name) { controller, _ in
            try controller.performFetch()
            #expect(!controller.core.reusedCache)
            return layout(controller)
        }
        let container = try store.container()
        try withController(container, cache: name) { controller, context in
            let before = queries(container)
            try controller.performFetch()
            #expect(controller.core.reusedCache)
            #expect(queries(container) - before == 1, "only the store generation is read")
            #expect(layout(controller) == expected)

            // Tracking starts from the cached placing values: the table follows a save exactly.
            let table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                          numberOfRows: { controller.sections![$0].numberOfObjects },
                                          cell: { let p = controller.object(at: $0); return "\(p.name ?? "")|\(p.price)" })
            let delegate = Seed001Delegate(tableView: table)
            controller.delegate = delegate
            let first = controller.object(at: IndexPath(row: 0, section: 0))
            first.price = 1_000_000
            first.name = "Zucchini"
            let added = Products(context: context)
            added.name = "Apple"; added.price = 3
            try context.save()
            #expect(table.errors.isEmpty)
            _ = delegate
            let fresh = try context.fetch(controller.fetchRequest)
            #expect(table.rows.flatMap { $0 } == fresh.map { "\($0.name ?? "")|\($0.price)" })
        }
    }

    /// Core Data checks a cache against the fetch request only, so it shows stale sections after the
    /// store changed behind it; ours records the store's save generation and rebuilds.
    @Test func aCacheIsRebuiltWhenTheStoreChangedSinceItWasWritten() throws {
        let store = TemporaryStore(), name = "ocd-test-\(UUID().uuidString)"
        defer { store.cleanUp(); NSFetchedResultsController<Products>.deleteCache(withName: name) }
        let container = try store.container()
        try container.viewContext.performAndWait { insertProducts(container.viewContext, count: 20); try container.viewContext.save() }
        try withController(container, cache: name) { controller, _ in try controller.performFetch() }
        try container.viewContext.performAndWait {
            let p = Products(context: container.viewContext)
            p.name = "Quince"; p.price = 7
            try container.viewContext.save()
        }
        try withController(container, cache: name) { controller, _ in
            try controller.performFetch()
            #expect(!controller.core.reusedCache)
            #expect(controller.fetchedObjects!.contains { $0.name == "Quince" })
        }
        // The rebuilt cache is valid again.
        try withController(container, cache: name) { controller, _ in
            try controller.performFetch()
            #expect(controller.core.reusedCache)
            #expect(controller.fetchedObjects!.count == 21)
        }
    }

    @Test func aDifferentRequestOrUnsavedChangesDoNotUseTheCache() throws {
        let store = TemporaryStore(), name = "ocd-test-\(UUID().uuidString)"
        defer { store.cleanUp(); NSFetchedResultsController<Products>.deleteCache(withName: name) }
        let container = try store.container()
        try container.viewContext.performAndWait { insertProducts(container.viewContext, count: 40); try container.viewContext.save() }
        try withController(container, cache: name) { controller, _ in try controller.performFetch() }
        let cheap = NSPredicate(format: "price < %@", NSNumber(value: 50))
        try withController(container, cache: name, predicate: cheap) { controller, context in
            try controller.performFetch()
            #expect(!controller.core.reusedCache)
            let expected = try context.fetch(controller.fetchRequest)
            #expect(controller.fetchedObjects! == expected)
        }
        try withController(container, cache: name, predicate: cheap) { controller, context in
            let p = Products(context: context)
            p.name = "Apple"; p.price = 1
            try controller.performFetch()
            #expect(!controller.core.reusedCache)
            #expect(controller.fetchedObjects!.contains(p))
        }
        try withController(container, cache: name, predicate: cheap) { controller, _ in
            try controller.performFetch()
            #expect(controller.core.reusedCache)
        }
    }
}

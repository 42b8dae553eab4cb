import Foundation
@_spi(StoreDiagnostics) @testable import OpenCoreData
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

    /// Seeded random launches: a controller with a cache over random products (random predicate, limit,
    /// offset, sort direction), maybe a save behind its back, then a second launch on a new coordinator.
    /// The second launch uses the cache exactly when nothing was saved in between, shows what a fresh
    /// fetch shows, and then follows random changes with a table that stays equal to a fresh fetch.
    @Test func randomLaunchesAgreeWithAFreshFetch() throws {
        let names = ["Сыр", "Масло", "Кефир", "apple", "Apple", "Йогурт"]
        for seed in UInt64(0)..<60 {
          do {
            var rng = SeededRandom(seed: seed &+ 0xCAC4E)
            let store = TemporaryStore(), name = "ocd-test-\(UUID().uuidString)"
            defer { store.cleanUp(); NSFetchedResultsController<Products>.deleteCache(withName: name) }
            func change(_ context: NSManagedObjectContext, _ rng: inout SeededRandom) throws {
                let all = try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
                switch rng.int(0...2) {
                case 0:
                    let p = Products(context: context)
                    p.name = rng.pick(names); p.price = Int32(rng.int(0...9))
                case 1 where !all.isEmpty: context.delete(rng.pick(all))
                default:
                    guard !all.isEmpty else { break }
                    let p = rng.pick(all)
                    if rng.chance(0.5) { p.name = rng.pick(names) } else { p.price = Int32(rng.int(0...9)) }
                }
            }
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.predicate = rng.chance(0.5) ? NSPredicate(format: "price < %d", rng.int(2...8)) : nil
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true),
                                       NSSortDescriptor(key: "price", ascending: rng.chance(0.5))]
            if rng.chance(0.25) { request.fetchLimit = rng.int(1...6); request.fetchOffset = rng.int(0...2) }
            func launch<R>(_ container: NSPersistentContainer, _ body: (NSFetchedResultsController<Products>, NSManagedObjectContext) throws -> R) throws -> R {
                let context = container.newBackgroundContext()
                return try context.performAndWait {
                    let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "name", cacheName: name)
                    try controller.performFetch()
                    return try body(controller, context)
                }
            }
            do {
                let container = try store.container()
                try container.viewContext.performAndWait {
                    for _ in 0..<rng.int(0...20) {
                        let p = Products(context: container.viewContext)
                        p.name = rng.pick(names); p.price = Int32(rng.int(0...9))
                    }
                    try container.viewContext.save()
                }
                try launch(container) { controller, _ in #expect(!controller.core.reusedCache, "seed \(seed)") }
                if rng.chance(0.4) {
                    var local = rng
                    let changed = try container.viewContext.performAndWait {
                        try change(container.viewContext, &local)
                        defer { _ = try? container.viewContext.save() }
                        return container.viewContext.hasChanges
                    }
                    rng = local
                    // Only a save that wrote something makes the cache stale.
                    try launch(try store.container()) { controller, _ in
                        #expect(controller.core.reusedCache == !changed, "seed \(seed): changed \(changed), cache used \(controller.core.reusedCache)")
                    }
                }
            }
            var local = rng
            try launch(try store.container()) { controller, context in
                #expect(controller.core.reusedCache, "seed \(seed): a matching cache was not used")
                let fresh = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "name", cacheName: nil)
                try fresh.performFetch()
                #expect(layout(controller) == layout(fresh), "seed \(seed): cached sections differ from a fetch")
                let table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                              numberOfRows: { controller.sections![$0].numberOfObjects },
                                              cell: { let p = controller.object(at: $0); return "\(p.name ?? "")|\(p.price)" })
                let delegate = Seed001Delegate(tableView: table)
                controller.delegate = delegate
                for step in 0..<local.int(1...3) {
                    for _ in 0..<local.int(1...3) { try change(context, &local) }
                    if local.chance(0.5) { try context.save() } else { context.processPendingChanges() }
                    let rows = try context.fetch(request).map { "\($0.name ?? "")|\($0.price)" }
                    #expect(table.errors.isEmpty, "seed \(seed) step \(step): \(table.errors)")
                    #expect(table.rows.flatMap { $0 } == rows, "seed \(seed) step \(step): table \(table.rows) fetch \(rows)")
                }
                _ = delegate
            }
          } catch {
            Issue.record("seed \(seed): \(error)")
          }
        }
    }
}

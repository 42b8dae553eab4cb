import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue 51, item 2: a fetched results controller whose request has a `fetchBatchSize` (and no window)
/// shows its first screen from the store's counts and first batch; the other rows are read meanwhile in
/// the same read transaction and become the whole results when something needs them, with every index
/// path a full fetch's and tracking exact.
@Suite struct FetchedFirstScreenTests {
    /// A store of `count` products (names and prices with many ties, every seventh a favorite).
    static func store(_ count: Int, seed: UInt64) throws -> (TemporaryStore, NSPersistentContainer) {
        try TemporaryStore.randomProducts(count, seed: seed, favoriteEvery: 7)
    }

    static func request(_ sorts: [NSSortDescriptor], batch: Int, predicate: NSPredicate? = nil) -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = sorts
        request.fetchBatchSize = batch
        request.predicate = predicate
        return request
    }

    /// Every section's name, title and size, and every object's ID by index path.
    static func contents(_ c: NSFetchedResultsController<Products>) -> [String] {
        (c.sections ?? []).enumerated().flatMap { s, section in
            ["\(section.name)|\(section.indexTitle ?? "-")|\(section.numberOfObjects)"]
                + (0..<section.numberOfObjects).map { "\(c.object(at: IndexPath(row: $0, section: s)).objectID.uriRepresentation())" }
        }
    }

    @Test func theFirstScreenIsCountedAndLimitedAndTheRestReadInTheSameTransaction() throws {
        let (store, container) = try Self.store(100, seed: 1)
        defer { store.cleanUp() }
        let context = container.newBackgroundContext()
        let sqlite = try container.persistentStoreCoordinator.sqlite
        let sorts = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: false)]
        let sql = try context.performAndWait {
            try sqlite.recordingSQL {
                let controller = NSFetchedResultsController(fetchRequest: Self.request(sorts, batch: 20), managedObjectContext: context,
                                                            sectionNameKeyPath: "name", cacheName: nil)
                try controller.performFetch()
                #expect(controller.core.firstScreen != nil)
                #expect(controller.sections?.reduce(0) { $0 + $1.numberOfObjects } == 100)
                for row in 0..<min(20, controller.sections![0].numberOfObjects) { _ = controller.object(at: IndexPath(row: row, section: 0)).name }
                #expect(controller.core.firstScreen != nil, "the first batch is served without the rest")
                #expect(controller.fetchedObjects?.count == 100)
                #expect(controller.core.firstScreen == nil)
            }
        }
        #expect(sql == [
            "SELECT t0.ZNAME, COUNT(t0.Z_PK) FROM ZPRODUCTS t0 GROUP BY t0.ZNAME ORDER BY t0.ZNAME",
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0 ORDER BY t0.ZNAME, t0.ZPRICE DESC, t0.Z_PK LIMIT 20",
            "SELECT t0.Z_PK, t0.Z_ENT, t0.ZNAME, t0.ZPRICE FROM ZPRODUCTS t0 ORDER BY t0.ZNAME, t0.ZPRICE DESC, t0.Z_PK",
        ])
    }

    /// Seeded: random orders, sections, predicates and batch sizes; the controller with a batch size
    /// shows what the one without shows, section by section and row by row, and serves its first batch
    /// before the rest when it can.
    @Test(arguments: [UInt64(21), 22, 23, 24, 25])
    func everyIndexPathIsTheFullFetchs(seed: UInt64) throws {
        let (store, container) = try Self.store(1500, seed: seed)
        defer { store.cleanUp() }
        var rng = SeededRandom(seed: seed)
        let sqlite = try container.persistentStoreCoordinator.sqlite
        for round in 0..<6 {
            let byName = rng.chance(0.5)
            let first = NSSortDescriptor(key: byName ? "name" : "price", ascending: rng.chance(0.5))
            let second = NSSortDescriptor(key: byName ? "price" : "name", ascending: rng.chance(0.5))
            let section: String? = rng.pick([nil, first.key])
            let predicate = rng.chance(0.5) ? NSPredicate(format: "price < %d", rng.int(0...45)) : nil
            let batch = rng.pick([1, 7, 20, 500, 5000])
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let full = NSFetchedResultsController(fetchRequest: Self.request([first, second], batch: 0, predicate: predicate),
                                                      managedObjectContext: context, sectionNameKeyPath: section, cacheName: nil)
                try full.performFetch()
                let expected = Self.contents(full)
                context.reset()
                // The last round's reader is done with its rows; wait until its thread takes the next job.
                for _ in 0..<400 where !sqlite.keyReader.isIdle { Thread.sleep(forTimeInterval: 0.005) }
                let lazy = NSFetchedResultsController(fetchRequest: Self.request([first, second], batch: batch, predicate: predicate),
                                                      managedObjectContext: context, sectionNameKeyPath: section, cacheName: nil)
                try lazy.performFetch()
                #expect(lazy.core.firstScreen != nil, "seed \(seed) round \(round)")
                #expect(Self.contents(lazy) == expected, "seed \(seed) round \(round): sections \(section ?? "none"), batch \(batch)")
            }
        }
    }

    /// Changes saved by another context after the first screen, before the reader read the rest: the
    /// rest is the first screen's moment, and the change is then tracked on top of it, as a full fetch
    /// tracks it.
    @Test(arguments: [UInt64(31), 32, 33])
    func changesWhileTheRestLoadsAreTrackedExactly(seed: UInt64) throws {
        let (store, container) = try Self.store(2000, seed: seed)
        defer { store.cleanUp() }
        let sqlite = try container.persistentStoreCoordinator.sqlite
        defer { sqlite.keyReaderGate = nil }
        var rng = SeededRandom(seed: seed)
        let gate = DispatchSemaphore(value: 0)
        sqlite.keyReaderGate = { gate.wait() }
        let sorts = [NSSortDescriptor(key: "price", ascending: rng.chance(0.5)), NSSortDescriptor(key: "name", ascending: true)]
        let context = container.viewContext
        let controller = NSFetchedResultsController(fetchRequest: Self.request(sorts, batch: 20), managedObjectContext: context,
                                                    sectionNameKeyPath: "price", cacheName: nil)
        let delegate = CountingDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        #expect(controller.core.firstScreen != nil)
        let before = controller.sections!.reduce(0) { $0 + $1.numberOfObjects }
        let writer = container.newBackgroundContext()
        let saved = try writer.performAndWait {
            let victims = try writer.fetch(Self.request([NSSortDescriptor(key: "name", ascending: true)], batch: 0)).prefix(60)
            for (i, p) in victims.enumerated() {
                if i % 3 == 0 { writer.delete(p) } else { p.price = Int32(rng.int(0...50)) }
            }
            for _ in 0..<25 {
                let p = Products(context: writer)
                p.name = "new"
                p.price = Int32(rng.int(0...50))
            }
            let inbox = Inbox(.NSManagedObjectContextDidSave, object: writer)
            try writer.save()
            return inbox.notes.last
        }
        // The reader reads the first screen's moment, though the save came first.
        gate.signal()
        #expect(controller.fetchedObjects?.count == before)
        #expect(controller.core.firstScreen == nil)
        context.mergeChanges(fromContextDidSave: try #require(saved))
        #expect(delegate.changes == 1)
        let fresh = NSFetchedResultsController(fetchRequest: Self.request(sorts, batch: 0), managedObjectContext: container.newBackgroundContext(),
                                               sectionNameKeyPath: "price", cacheName: nil)
        try fresh.managedObjectContext.performAndWait { try fresh.performFetch() }
        let expected = fresh.managedObjectContext.performAndWait { Self.contents(fresh) }
        #expect(Self.contents(controller) == expected, "seed \(seed)")
    }

    /// A controller with a cache name, a window, unsaved changes or a section key path other than the
    /// first sort key fetches every object first, as before.
    @Test func whatTheFirstScreenDoesNotServe() throws {
        let (store, container) = try Self.store(200, seed: 4)
        defer { store.cleanUp() }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let sorts = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
            func controller(_ request: NSFetchRequest<Products>, section: String? = nil, cache: String? = nil) throws -> NSFetchedResultsController<Products> {
                let c = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: section, cacheName: cache)
                try c.performFetch()
                return c
            }
            #expect(try controller(Self.request(sorts, batch: 20)).core.firstScreen != nil)
            // Sections by a string order other than `compare:` (names equal but for case would interleave).
            let folded = [NSSortDescriptor(key: "name", ascending: true, selector: Selector("caseInsensitiveCompare:")), sorts[1]]
            #expect(try controller(Self.request(folded, batch: 20), section: "name").core.firstScreen == nil)
            let windowed = Self.request(sorts, batch: 20)
            windowed.fetchLimit = 50
            #expect(try controller(windowed).core.firstScreen == nil)
            let cacheName = "first-screen-\(UUID().uuidString)"
            defer { NSFetchedResultsController<Products>.deleteCache(withName: cacheName) }
            #expect(try controller(Self.request(sorts, batch: 20), cache: cacheName).core.firstScreen == nil)
            let p = Products(context: context)
            p.name = "unsaved"
            let pending = try controller(Self.request(sorts, batch: 20))
            #expect(pending.core.firstScreen == nil)
            #expect(pending.fetchedObjects?.contains(p) == true)
        }
    }

    /// A controller fetched whole (here: with a cache name) reads every object's values in one query,
    /// not one per batch of `fetchBatchSize` (a new coordinator: no rows cached).
    @Test func aWholeFetchIsOneQueryWhateverTheBatchSize() throws {
        let (store, _) = try Self.store(200, seed: 5)
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.newBackgroundContext()
        let sqlite = try container.persistentStoreCoordinator.sqlite
        let cacheName = "whole-\(UUID().uuidString)"
        defer { NSFetchedResultsController<Products>.deleteCache(withName: cacheName) }
        try context.performAndWait {
            let sorts = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
            let c = NSFetchedResultsController(fetchRequest: Self.request(sorts, batch: 20), managedObjectContext: context,
                                               sectionNameKeyPath: nil, cacheName: cacheName)
            let before = sqlite.queryCount
            try c.performFetch()
            #expect(c.core.firstScreen == nil)
            #expect(c.fetchedObjects?.count == 200)
            #expect(sqlite.queryCount - before <= 3, "\(sqlite.queryCount - before) queries")
        }
    }

    /// The reader fails after the first screen (the file cut short under it): the rest is read again when
    /// it is needed, and the results are the store's.
    @Test func aReaderThatFailsIsReadAgain() throws {
        let (file, container, emptySize) = try FailedReadTests.manyProducts()
        defer { file.cleanUp() }
        let whole = try Data(contentsOf: file.url)
        let sqlite = try container.persistentStoreCoordinator.sqlite
        defer { sqlite.keyReaderGate = nil }
        let url = file.url
        sqlite.keyReaderGate = {
            guard let handle = try? FileHandle(forWritingTo: url) else { return }
            try? handle.truncate(atOffset: emptySize)
            try? handle.close()
        }
        let request = Self.request([NSSortDescriptor(key: "price", ascending: true)], batch: 20)
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        #expect(controller.core.firstScreen != nil)
        for _ in 0..<400 where !sqlite.keyReader.isIdle { Thread.sleep(forTimeInterval: 0.005) }
        sqlite.keyReaderGate = nil
        try whole.write(to: url)
        #expect(controller.fetchedObjects?.count == 3000)
        let prices = controller.fetchedObjects!.map(\.price)
        #expect(prices == prices.sorted())
    }
}

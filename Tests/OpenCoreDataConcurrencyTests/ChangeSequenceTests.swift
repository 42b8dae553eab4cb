import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue #35, item 5: changes as `AsyncSequence`s — a fetched results controller's snapshots and change
/// batches, a context's saves and object changes — under a background writer.
@Suite struct ChangeSequenceTests {
    /// A controller on a private-queue context that merges the writer's saves, over the products.
    struct Setup {
        let store = TemporaryStore()
        let container: NSPersistentContainer
        let reader: NSManagedObjectContext
        let controller: NSFetchedResultsController<Products>

        init() throws {
            container = try store.container()
            reader = container.newBackgroundContext()
            reader.automaticallyMergesChangesFromParent = true
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Products.name, ascending: true), NSSortDescriptor(keyPath: \Products.price, ascending: true)]
            controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: reader, sectionNameKeyPath: "name", cacheName: nil)
            let controller = controller
            try reader.performAndWait { try controller.performFetch() }
        }

        /// Saves `count` new products in a background context, one save each.
        func write(_ count: Int, price: Int32 = 1) throws {
            let writer = container.newBackgroundContext()
            try writer.performAndWait {
                for i in 0..<count {
                    let p = Products(context: writer)
                    p.name = SeedModel.productNames[i % SeedModel.productNames.count]
                    p.price = price + Int32(i)
                    try writer.save()
                }
            }
        }
    }

    @Test func snapshotsFollowTheResultsAndASlowConsumerGetsTheNewest() async throws {
        let setup = try Setup()
        defer { setup.store.cleanUp() }
        var iterator = setup.controller.snapshots.makeAsyncIterator()
        try setup.write(5)
        // The merges run on the reader's queue; wait for them.
        setup.reader.performAndWait {}
        // Six snapshots were offered (the first, then one per save); a reader that was busy gets the newest.
        let newest = await iterator.next()
        #expect(newest?.sections.reduce(0) { $0 + $1.objectIDs.count } == 5)
        #expect(newest?.diffableSnapshot.numberOfItems == 5)
        try setup.write(1, price: 900)
        let next = await iterator.next()
        #expect(next?.sections.reduce(0) { $0 + $1.objectIDs.count } == 6)
    }

    @Test func everyChangeBatchArrivesInOrderAndTwoIterationsAreTwoSubscriptions() async throws {
        let setup = try Setup()
        defer { setup.store.cleanUp() }
        let batches = setup.controller.changeBatches
        var first = batches.makeAsyncIterator()
        var second = batches.makeAsyncIterator()
        try setup.write(3)
        var seen: [FetchedResultsChangeBatch] = []
        for _ in 0..<3 { if let batch = await first.next() { seen.append(batch) } }
        #expect(seen.count == 3)
        #expect(seen.map { $0.differences.values.reduce(0) { $0 + $1.insertions.count } } == [1, 1, 1])
        #expect(seen[0].insertedSections == [SeedModel.productNames[0]])
        #expect(seen.last?.snapshot.sections.count == 3)
        for expected in seen {
            let batch = await second.next()
            #expect(batch == expected)
        }
    }

    @Test func cancellingAConsumerStopsTrackingAndFreesTheController() async throws {
        var setup: Setup? = try Setup()
        let store = setup!.store
        defer { store.cleanUp() }
        weak var core = setup!.controller.core
        let sequence = setup!.controller.snapshots
        let task = Task {
            var count = 0
            for await _ in sequence { count += 1 }
            return count
        }
        // Wait until the task has subscribed.
        for _ in 0..<200 where setup!.controller.core.listeners.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(setup!.controller.core.isTracking)
        task.cancel()
        _ = await task.value
        #expect(setup!.controller.core.listeners.withLock { $0.isEmpty })
        #expect(!setup!.controller.core.isTracking)
        setup = nil
        #expect(core == nil, "the sequence does not keep the controller alive")
        // A sequence of a freed controller ends at once.
        var ended = sequence.makeAsyncIterator()
        #expect(await ended.next() == nil)
    }

    @Test func aContextsSavesAndChangesArriveTyped() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.newBackgroundContext()
        var saves = context.didSaveChanges.makeAsyncIterator()
        var changes = context.objectsDidChange.makeAsyncIterator()
        let ids: [NSManagedObjectID] = try context.performAndWait {
            let products = SeedModel.insertProducts(context, count: 2, seed: 9)
            try context.save()
            products[0].price = 1
            context.delete(products[1])
            try context.save()
            return products.map(\.objectID)
        }
        let first = await saves.next()
        #expect(first?.inserted == Set(ids) && first?.updated.isEmpty == true)
        let second = await saves.next()
        #expect(second?.updated == [ids[0]] && second?.deleted == [ids[1]])
        let change = await changes.next()
        #expect(change?.inserted.count == 2)
    }
}

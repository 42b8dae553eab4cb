import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Issue #17: the in-memory store evaluates block predicates, as Core Data's does (Apple,
/// `NSPredicate(block:)`: "Core Data supports block-based predicates in the in-memory and atomic stores,
/// but not in the SQLite-based store"): every row of the entity is read, the predicate judged on the
/// objects, then sort, offset and limit are applied.
@Suite("Block predicates in the in-memory store")
struct InMemoryBlockPredicateTests {
    /// A context on an in-memory store holding a saved random graph.
    static func zoo(seed: UInt64) throws -> (NSManagedObjectContext, [String: [NSManagedObject]]) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: GraphModel.make())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let made = try context.performAndWait {
            var rng = SeededRandom(seed: seed)
            let made = GraphModel.populate(context, &rng, animals: 40)
            try context.save()
            return made
        }
        return (context, made)
    }

    /// `legs > n` as a block, reading the object the way an app would.
    static func moreLegs(than n: Int) -> NSPredicate {
        NSPredicate { object, _ in ((object as? NSManagedObject)?.value(forKey: "legs") as? Int).map { $0 > n } ?? false }
    }

    /// Each block fetch gives what the same predicate written as a format string gives through SQL: the
    /// same objects in the same order, the same count and IDs, with random unsaved changes, sorts,
    /// offsets, limits and batch sizes, the block alone or inside a compound predicate.
    @Test func aBlockFetchAgreesWithTheSameFormatFetch() throws {
        for seed in UInt64(1)...12 {
            let (context, made) = try Self.zoo(seed: seed)
            try context.performAndWait {
                var rng = SeededRandom(seed: seed &* 7919)
                let animals = made["Animal"]!
                for _ in 0..<rng.int(0...8) {
                    let animal = rng.pick(animals)
                    guard !animal.isDeleted else { continue }
                    switch rng.int(0...3) {
                    case 0: context.delete(animal)
                    case 1: GraphModel.insert("Animal", context, &rng, made)
                    default: animal.setValue(GraphModel.value("legs", &rng), forKey: "legs")
                    }
                }
                for round in 0..<20 {
                    let n = rng.int(-1...6)
                    let compound = rng.chance(0.5)
                    let block = Self.moreLegs(than: n)
                    let other = NSPredicate(format: "weight >= %d", rng.int(-2...6))
                    let formatRequest = NSFetchRequest<NSManagedObject>(entityName: "Animal")
                    let blockRequest = NSFetchRequest<NSManagedObject>(entityName: "Animal")
                    formatRequest.predicate = compound
                        ? NSCompoundPredicate(andPredicateWithSubpredicates: [other, NSPredicate(format: "legs > %d", n)])
                        : NSPredicate(format: "legs > %d", n)
                    blockRequest.predicate = compound ? NSCompoundPredicate(andPredicateWithSubpredicates: [other, block]) : block
                    let sorts = [[NSSortDescriptor(key: "legs", ascending: rng.chance(0.5))],
                                 [NSSortDescriptor(key: "weight", ascending: rng.chance(0.5)), NSSortDescriptor(key: "legs", ascending: true)],
                                 []]
                    let sort = rng.pick(sorts)
                    let (offset, limit, batch) = (rng.chance(0.4) ? rng.int(0...5) : 0, rng.chance(0.4) ? rng.int(1...8) : 0, rng.chance(0.3) ? 3 : 0)
                    for request in [formatRequest, blockRequest] {
                        request.sortDescriptors = sort
                        request.fetchOffset = offset
                        request.fetchLimit = limit
                        request.fetchBatchSize = batch
                    }
                    let label = "seed \(seed), round \(round): legs > \(n), compound \(compound), offset \(offset), limit \(limit)"
                    let expected = try context.fetch(formatRequest)
                    let got = try context.fetch(blockRequest)
                    #expect(got.map(ObjectIdentifier.init) == expected.map(ObjectIdentifier.init), "\(label)")
                    #expect(try context.count(for: blockRequest) == context.count(for: formatRequest), "\(label)")
                    let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Animal")
                    ids.predicate = blockRequest.predicate
                    ids.sortDescriptors = sort
                    ids.resultType = .managedObjectIDResultType
                    (ids.fetchOffset, ids.fetchLimit) = (offset, limit)
                    #expect(try context.fetch(ids) == expected.map(\.objectID), "\(label)")
                }
            }
        }
    }

    /// Without `includesPendingChanges`, unsaved inserts are left out and unsaved deletes still come back.
    @Test func withoutPendingChangesUnsavedObjectsAreLeftAsStored() throws {
        let (context, made) = try Self.zoo(seed: 3)
        try context.performAndWait {
            var rng = SeededRandom(seed: 5)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.predicate = NSPredicate { _, _ in true }
            request.includesPendingChanges = false
            let stored = try context.fetch(request)
            let inserted = GraphModel.insert("Animal", context, &rng, made)
            let deleted = made["Animal"]![0]
            context.delete(deleted)
            let fetched = try context.fetch(request)
            #expect(fetched.count == stored.count)
            #expect(!fetched.contains(inserted))
            #expect(fetched.contains(deleted))
            request.includesPendingChanges = true
            let withPending = try context.fetch(request)
            #expect(withPending.contains(inserted) && !withPending.contains(deleted))
        }
    }

    /// A controller re-judges an object with a block predicate whatever key changed (a block may read any).
    @Test func aControllerWithABlockSeesEveryChange() throws {
        let (context, made) = try Self.zoo(seed: 9)
        try context.performAndWait {
            let heavy = NSPredicate { object, _ in ((object as? NSManagedObject)?.value(forKey: "weight") as? Double ?? -1) > 100 }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.predicate = heavy
            request.sortDescriptors = [NSSortDescriptor(key: "legs", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: "blocks")
            let delegate = ChangeCounter()
            controller.delegate = delegate
            try controller.performFetch()
            #expect(controller.fetchedObjects?.isEmpty == true)
            let animal = made["Animal"]![4]
            animal.setValue(500.0, forKey: "weight")
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(ObjectIdentifier.init) == [ObjectIdentifier(animal)])
            try context.save()
            animal.setValue(1.0, forKey: "weight")
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.isEmpty == true)
            #expect(delegate.batches == 2)
        }
    }

    /// Counts the controller's batches of changes.
    final class ChangeCounter: NSFetchedResultsControllerDelegate {
        var batches = 0
        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { batches += 1 }
    }

    /// A child context's fetch goes through its parent to the in-memory store, and judges its own unsaved
    /// objects with the block.
    @Test func aChildContextFetchesWithABlock() throws {
        let (context, _) = try Self.zoo(seed: 4)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = context
        try child.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.predicate = Self.moreLegs(than: 3)
            let expected = try context.performAndWait { try context.fetch(request).map(\.objectID) }
            #expect(Set(try child.fetch(request).map(\.objectID)) == Set(expected))
            let mine = child.make("Animal")
            mine.setValue(6, forKey: "legs")
            #expect(try child.fetch(request).contains(mine))
            #expect(try child.count(for: request) == expected.count + 1)
        }
    }

    /// Dictionary results run in SQL only: a block predicate there is a clear error, before any SQL runs.
    @Test func dictionaryResultsRefuseABlock() throws {
        let (context, _) = try Self.zoo(seed: 2)
        try context.performAndWait {
            let store = try context.persistentStoreCoordinator!.firstStoreBackend()
            let before = store.queryCount
            let request = NSFetchRequest<NSDictionary>(entityName: "Animal")
            request.resultType = .dictionaryResultType
            request.predicate = Self.moreLegs(than: 1)
            #expect { try context.fetch(request) } throws: { "\($0)".contains("into dictionaries cannot use a block predicate") }
            #expect(store.queryCount == before)
        }
    }
}

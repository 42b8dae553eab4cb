import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Issue #17 in fetches: block predicates are refused before any SQL runs; set expressions run in SQL
/// as memberships, or throw before any SQL runs.
@Suite("Block predicates and set expressions in fetches")
struct PredicateAPIFetchTests {
    static func zoo(_ file: TemporaryStore) throws -> NSManagedObjectContext {
        let context = try file.container(GraphModel.make()).newBackgroundContext()
        try context.performAndWait {
            var rng = SeededRandom(seed: 17)
            _ = GraphModel.populate(context, &rng)
            try context.save()
        }
        return context
    }

    // Apple, NSPredicate(block:): "Core Data supports block-based predicates in the in-memory and atomic
    // stores, but not in the SQLite-based store."
    @Test func blockPredicatesAreRefusedBeforeAnySQLRuns() throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let context = try Self.zoo(file)
        try context.performAndWait {
            let store = try context.persistentStoreCoordinator!.firstStoreBackend()
            let before = store.queryCount
            let block = NSPredicate { _, _ in true }
            for predicate in [block, NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "legs > 1"), block])] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
                request.predicate = predicate
                #expect { try context.fetch(request) } throws: { "\($0)".contains("unimplemented SQL generation for predicate : (BLOCKPREDICATE(0x") }
                #expect { try context.count(for: request) } throws: { "\($0)".contains("BLOCKPREDICATE") }
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
                #expect { try controller.performFetch() } throws: { "\($0)".contains("BLOCKPREDICATE") }
            }
            #expect(store.queryCount == before)
            // In memory, the fetched objects filter with it.
            let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            let heavy = NSPredicate { object, _ in ((object as? NSManagedObject)?.value(forKey: "weight") as? Double ?? 0) > 5 }
            #expect(all.filtered(using: heavy).count == all.filter { ($0.value(forKey: "weight") as? Double ?? 0) > 5 }.count)
        }
    }

    @Test func setExpressionsRunInSQLAsMemberships() throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let context = try Self.zoo(file)
        try context.performAndWait {
            let animals = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            let zoos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo"))
            for (format, args) in [
                ("%@ IN zoos UNION %@", [zoos[0], [zoos[1]]]),
                ("%@ IN zoos MINUS %@", [zoos[0], [zoos[1]]]),
                ("zoos INTERSECT %@ CONTAINS %@", [[zoos[0], zoos[2]], zoos[0]]),
                ("'Bronx' IN[c] zoos.name UNION {'a'}", []),
                ("'Bronx' IN zoos.name MINUS {'Bronx'}", []),
                ("name IN {'a', 'abc'} UNION {'zz'}", []),
                ("ANY zoos.name UNION {'q'} BEGINSWITH 'B'", []),
            ] as [(String, [Any])] {
                let predicate = NSPredicate(format: format, argumentArray: args)
                let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
                request.predicate = predicate
                let fetched = Set(try context.fetch(request).map(\.objectID))
                let inMemory = Set(animals.filter { predicate.evaluate(with: $0) }.map(\.objectID))
                #expect(fetched == inMemory, "\(format)")
            }
            let store = try context.persistentStoreCoordinator!.firstStoreBackend()
            let before = store.queryCount
            for format in ["(zoos UNION {}).@count > 1", "'x' IN[c] zoos.name MINUS {'a'}", "ANY zoos.name MINUS {'a'} == 'b'"] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
                request.predicate = NSPredicate(format: format)
                #expect(throws: (any Error).self, "\(format)") { try context.fetch(request) }
            }
            #expect(store.queryCount == before)
        }
    }

    /// Issue #17, item 8: a managed object or an object ID given as `%@` is what `constantValue` returns
    /// (the predicate compares keys underneath), and the predicate still fetches by key.
    @Test func managedObjectArgumentsAreTheirOwnConstants() throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let context = try Self.zoo(file)
        try context.performAndWait {
            let zoos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo"))
            let predicate = NSPredicate(format: "%@ IN zoos OR %@ IN zoos", zoos[0], zoos[1].objectID)
            let parts = try #require(predicate as? NSCompoundPredicate).subpredicates.compactMap { $0 as? NSComparisonPredicate }
            #expect(parts.first?.leftExpression.constantValue as? NSManagedObject === zoos[0])
            #expect(parts.last?.leftExpression.constantValue as? NSManagedObjectID == zoos[1].objectID)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.predicate = predicate
            let animals = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            #expect(Set(try context.fetch(request).map(\.objectID)) == Set(animals.filter { predicate.evaluate(with: $0) }.map(\.objectID)))
        }
    }
}

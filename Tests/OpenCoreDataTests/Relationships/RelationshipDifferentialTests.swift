import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// SQL and memory agree across relationships: random object graphs (``GraphModel``: some nil to-ones,
/// empty to-manys) × random relationship predicates (``GraphPredicateGenerator``), the store's answer
/// (SQL, counts included) equal to `evaluate(with:)` on the same objects — 10,400 predicates per run;
/// then 2,400 more with random unsaved edits, the fetch merging pending changes. A failure prints its
/// seed (and the edit round's).
@Suite("Relationships: SQL and memory agree on random graphs")
struct RelationshipDifferentialTests {
    static let predicatesPerGraph = 2_600
    static let roundsWithEdits = 4, predicatesPerRound = 150

    /// A saved random graph, read back by a fresh context: the objects by entity, and one unsaved
    /// (never inserted) object per entity for arguments.
    static func graph(_ file: TemporaryStore, seed: UInt64) throws -> (NSManagedObjectContext, [String: [NSManagedObject]], [String: NSManagedObject]) {
        let context = try file.container(GraphModel.make()).newBackgroundContext()
        return try context.performAndWait {
            var rng = SeededRandom(seed: seed)
            _ = GraphModel.populate(context, &rng)
            try context.save()
            context.reset()
            var objects: [String: [NSManagedObject]] = [:], unsaved: [String: NSManagedObject] = [:]
            for entity in GraphPredicateGenerator.entities {
                objects[entity] = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
                unsaved[entity] = NSManagedObject(entity: context.persistentStoreCoordinator!.managedObjectModel.entitiesByName[entity]!, insertInto: nil)
            }
            return (context, objects, unsaved)
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomPredicatesOverRandomGraphs(_ chunk: UInt64) throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let (context, objects, unsaved) = try Self.graph(file, seed: chunk &* 104_729)
        try context.performAndWait {
            var compared = 0
            for i in 0..<Self.predicatesPerGraph {
                let seed = chunk &* 1_000_003 &+ UInt64(i)
                if try compare(seed: seed, context, objects, unsaved) { compared += 1 }
            }
            #expect(compared == Self.predicatesPerGraph)
        }
    }

    /// The same with unsaved edits, the fetch merging pending changes: rounds that change values of one
    /// entity only (the store still answers for the other entities' rows, joined and subqueried), and
    /// rounds that change anything (values, links, inserts, deletes). Each round is rolled back.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomPredicatesWithUnsavedEdits(_ chunk: UInt64) throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let (context, objects, unsaved) = try Self.graph(file, seed: chunk &* 7_919)
        try context.performAndWait {
            for round in 0..<Self.roundsWithEdits {
                let roundSeed = chunk &* 31 &+ UInt64(round)
                var rng = SeededRandom(seed: roundSeed)
                let current = Self.edit(context, objects, &rng, valuesOf: round % 2 == 0 ? rng.pick(GraphPredicateGenerator.entities) : nil)
                for i in 0..<Self.predicatesPerRound {
                    let seed = roundSeed &* 1_000_003 &+ UInt64(i)
                    _ = try compare(seed: seed, context, current, unsaved, label: "edit round seed \(roundSeed), ")
                }
                context.rollback()
            }
        }
    }

    /// Random unsaved edits: values of `entity`'s objects only, or (for `nil`) values, links, inserts and
    /// deletes of every entity. Returns the objects as they now are (inserted ones included).
    static func edit(_ context: NSManagedObjectContext, _ objects: [String: [NSManagedObject]], _ rng: inout SeededRandom,
                     valuesOf entity: String?) -> [String: [NSManagedObject]] {
        var current = objects
        for e in GraphPredicateGenerator.entities where entity == nil || e == entity {
            for object in current[e]! where rng.chance(0.3) {
                for attribute in GraphModel.attributes[e]! where rng.chance(0.5) { object.setValue(GraphModel.value(attribute, &rng), forKey: attribute) }
                if entity == nil, rng.chance(0.5) { GraphModel.link(object, &rng, current) }
            }
        }
        guard entity == nil else { return current }
        for e in GraphPredicateGenerator.entities {
            for _ in 0..<rng.int(0...2) { current[e]!.append(GraphModel.insert(e, context, &rng, current)) }
        }
        for _ in 0..<rng.int(1...3) {
            let victims = current[rng.pick(GraphPredicateGenerator.entities)]!.filter { !$0.isDeleted }
            if !victims.isEmpty { context.delete(rng.pick(victims)) }
        }
        context.processPendingChanges()
        return current
    }

    /// One random predicate: SQL (IDs and count) against memory. Returns false when it could not be compared.
    func compare(seed: UInt64, _ context: NSManagedObjectContext, _ objects: [String: [NSManagedObject]],
                 _ unsaved: [String: NSManagedObject], label: String = "") throws -> Bool {
        var generator = GraphPredicateGenerator(rng: SeededRandom(seed: seed), objects: objects, unsaved: unsaved)
        let (entity, format, args) = generator.next()
        let predicate: NSPredicate
        do {
            predicate = try NSPredicate(validatingFormat: format, argumentArray: args)
        } catch {
            Issue.record("\(label)seed \(seed): \(format) does not parse: \(error)")
            return false
        }
        let candidates = objects[entity]!.filter { !$0.isDeleted }
        let memory: Set<NSManagedObjectID>
        do {
            memory = Set(try candidates.filter { try predicate.evaluate(validating: $0) }.map(\.objectID))
        } catch {
            Issue.record("\(label)seed \(seed): \(entity) \(predicate.predicateFormat): memory throws \(error)")
            return false
        }
        let typed = Set(candidates.filtered(using: predicate).map(\.objectID))
        if typed != memory {
            Issue.record("\(label)seed \(seed): \(entity) \(predicate.predicateFormat): evaluate(with: NSManagedObject) differs from evaluate(with: Any)")
        }
        let request = NSFetchRequest<NSManagedObjectID>(entityName: entity)
        request.resultType = .managedObjectIDResultType
        request.predicate = predicate
        let sql: Set<NSManagedObjectID>
        let count: Int
        do {
            sql = Set(try context.fetch(request))
            count = try context.count(for: request)
        } catch {
            Issue.record("\(label)seed \(seed): \(entity) \(predicate.predicateFormat) fails in SQL: \(error)")
            return false
        }
        if sql != memory || count != memory.count {
            let name = { (id: NSManagedObjectID) in id.uriRepresentation().lastPathComponent }
            Issue.record("\(label)seed \(seed): \(entity) \(predicate.predicateFormat): SQL \(sql.map(name).sorted()) (count \(count)), memory \(memory.map(name).sorted())")
        }
        return true
    }
}

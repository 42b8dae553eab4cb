import Foundation
import OpenCoreDataTesting
import Testing
@testable import OpenCoreData

/// Seeded random histories of graph edits (set and clear to-ones, add and remove to-many members from
/// either side, insert, delete with nullify, save, rollback, a second context's saves merged in) against
/// a reference model of plain edge sets. After every step both sides of every relationship must match the
/// reference in memory; after every save, a new context reading the store must too. A failure prints
/// its seed.
@Suite("Relationships: random graph histories") struct GraphHistoryTests {
    /// The reference: edges by name.
    struct Reference: Equatable {
        var animals = Set<String>(), classifications = Set<String>(), zoos = Set<String>()
        var classificationOf: [String: String] = [:]
        var zoosOf: [String: Set<String>] = [:]

        mutating func deleteAnimal(_ a: String) { animals.remove(a); classificationOf[a] = nil; zoosOf[a] = nil }
        mutating func deleteClassification(_ c: String) {
            classifications.remove(c)
            for (a, x) in classificationOf where x == c { classificationOf[a] = nil }
        }
        mutating func deleteZoo(_ z: String) {
            zoos.remove(z)
            for a in zoosOf.keys { zoosOf[a]?.remove(z) }
        }
    }

    static let cases = 200, steps = 40

    @Test func randomHistoriesKeepBothSides() throws {
        var failures: [String] = []
        let only = ProcessInfo.processInfo.environment["OCD_GRAPH_SEED"].flatMap(UInt64.init)
        for seed in only.map({ [$0] }) ?? Array(1...UInt64(Self.cases)) {
            do { try history(seed: seed) } catch { failures.append("seed \(seed): \(error)") }
            if failures.count > 3 { break }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    struct Mismatch: Error, CustomStringConvertible { let description: String }

    func history(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(RelationshipModel.make())
        let context = container.viewContext
        var reference = Reference(), saved = Reference()
        var counter = 0
        var log: [String] = []
        func objects(_ entity: String) throws -> [String: NSManagedObject] {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            return Dictionary(try context.fetch(request).map { (name(of: $0), $0) }, uniquingKeysWith: { a, _ in a })
        }
        func name(of object: NSManagedObject) -> String {
            (object.value(forKey: object.entity.name == "Classification" ? "order" : (object.entity.name == "Zoo" ? "name" : "commonName")) as? String) ?? "?"
        }
        func check(_ context: NSManagedObjectContext, _ expected: Reference, _ when: String) throws {
            func fetch(_ entity: String) throws -> [NSManagedObject] { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) }
            let animals = try fetch("Animal"), classifications = try fetch("Classification"), zoos = try fetch("Zoo")
            var actual = Reference()
            actual.animals = Set(animals.map(name(of:)))
            actual.classifications = Set(classifications.map(name(of:)))
            actual.zoos = Set(zoos.map(name(of:)))
            for a in animals {
                if let c = a.value(forKey: "classification") as? NSManagedObject { actual.classificationOf[name(of: a)] = name(of: c) }
                let z = Set(a.set("zoos").map(name(of:)))
                if !z.isEmpty { actual.zoosOf[name(of: a)] = z }
            }
            var expected = expected
            expected.zoosOf = expected.zoosOf.filter { !$0.value.isEmpty }
            // The inverse sides, from the classifications and zoos.
            var fromClassifications: [String: String] = [:]
            for c in classifications { for a in c.set("animals") { fromClassifications[name(of: a)] = name(of: c) } }
            var fromZoos: [String: Set<String>] = [:]
            for z in zoos { for a in z.set("animals") { fromZoos[name(of: a), default: []].insert(name(of: z)) } }
            guard actual == expected, fromClassifications == expected.classificationOf, fromZoos == expected.zoosOf else {
                throw Mismatch(description: "\(when): expected \(expected)\nactual \(actual)\nfrom classifications \(fromClassifications)\nfrom zoos \(fromZoos)\nsteps:\n\(log.joined(separator: "\n"))")
            }
        }
        let steps = ProcessInfo.processInfo.environment["OCD_GRAPH_STEPS"].flatMap(Int.init) ?? Self.steps
        for step in 0..<steps {
          do {
            counter += 1
            let animals = try objects("Animal"), classifications = try objects("Classification"), zoos = try objects("Zoo")
            switch rng.int(0...11) {
            case 0:
                context.make("Animal", ["commonName": "a\(counter)"]); reference.animals.insert("a\(counter)")
                log.append("insert animal a\(counter)")
            case 1:
                context.make("Classification", ["order": "c\(counter)"]); reference.classifications.insert("c\(counter)")
                log.append("insert classification c\(counter)")
            case 2:
                context.make("Zoo", ["name": "z\(counter)"]); reference.zoos.insert("z\(counter)")
                log.append("insert zoo z\(counter)")
            case 3, 4:
                guard let a = animals.keys.sorted().randomElement(using: &rng) else { continue }
                let c = rng.chance(0.8) ? classifications.keys.sorted().randomElement(using: &rng) : nil
                if let c, rng.chance(0.5) {
                    classifications[c]!.mutableSetValue(forKey: "animals").add(animals[a]!)
                    log.append("\(c).animals add \(a)")
                } else {
                    animals[a]!.setValue(c.map { classifications[$0]! }, forKey: "classification")
                    log.append("\(a).classification = \(c ?? "nil")")
                }
                reference.classificationOf[a] = c
            case 5:
                guard let c = classifications.keys.sorted().randomElement(using: &rng),
                      let a = reference.classificationOf.filter({ $0.value == c }).keys.sorted().randomElement(using: &rng) else { continue }
                classifications[c]!.mutableSetValue(forKey: "animals").remove(animals[a]!)
                reference.classificationOf[a] = nil
                log.append("\(c).animals remove \(a)")
            case 6, 7:
                guard let a = animals.keys.sorted().randomElement(using: &rng), let z = zoos.keys.sorted().randomElement(using: &rng) else { continue }
                let add = rng.chance(0.6)
                let (owner, key, member) = rng.chance(0.5) ? (animals[a]!, "zoos", zoos[z]!) : (zoos[z]!, "animals", animals[a]!)
                if add { owner.mutableSetValue(forKey: key).add(member); reference.zoosOf[a, default: []].insert(z) }
                else { owner.mutableSetValue(forKey: key).remove(member); reference.zoosOf[a]?.remove(z) }
                log.append("\(name(of: owner)).\(key) \(add ? "add" : "remove") \(name(of: member))")
            case 8:
                let all = Array(animals.values) + Array(classifications.values) + Array(zoos.values)
                guard let victim = all.sorted(by: { name(of: $0) < name(of: $1) }).randomElement(using: &rng) else { continue }
                let n = name(of: victim)
                context.delete(victim)
                // Delete rules run when the context processes its changes (Core Data: at the end of the event).
                context.processPendingChanges()
                switch victim.entity.name {
                case "Animal": reference.deleteAnimal(n)
                case "Classification": reference.deleteClassification(n)
                default: reference.deleteZoo(n)
                }
                log.append("delete \(n)")
            case 9:
                try context.save()
                saved = reference
                log.append("save")
                let fresh = container.newBackgroundContext()
                try fresh.performAndWait { try check(fresh, saved, "seed \(seed) step \(step) reread after save") }
            case 10:
                context.rollback()
                reference = saved
                log.append("rollback")
            default:
                // Another context reassigns a saved animal and saves; the view context merges it.
                guard let a = saved.animals.sorted().randomElement(using: &rng), !context.hasChanges else { continue }
                let c = saved.classifications.sorted().randomElement(using: &rng)
                let other = container.newBackgroundContext()
                let box = NotificationInbox()
                let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: other, queue: nil) { box.append($0) }
                defer { NotificationCenter.default.removeObserver(observer) }
                try other.performAndWait {
                    let r = NSFetchRequest<NSManagedObject>(entityName: "Animal")
                    r.predicate = NSPredicate(format: "commonName == %@", a)
                    let animal = try other.fetch(r)[0]
                    let cr = NSFetchRequest<NSManagedObject>(entityName: "Classification")
                    cr.predicate = NSPredicate(format: "order == %@", c ?? "")
                    animal.setValue(try other.fetch(cr).first, forKey: "classification")
                    try other.save()
                }
                for note in box.notes { context.mergeChanges(fromContextDidSave: note) }
                reference.classificationOf[a] = c
                saved = reference
                log.append("other context: \(a).classification = \(c ?? "nil") (merged)")
            }
            try check(context, reference, "seed \(seed) step \(step)")
          } catch let error as Mismatch {
            throw error
          } catch {
            if ProcessInfo.processInfo.environment["OCD_GRAPH_SEED"] != nil {
                for o in context.registeredObjects.sorted(by: { name(of: $0) < name(of: $1) }) { print("replay:", name(of: o), o.objectID.key, o.lifecycle, o.values) }
                for o in context.deletedObjects { print("replay: deleted", name(of: o), o.objectID.key) }
            }
            throw Mismatch(description: "seed \(seed) step \(step): \(error)\nsteps:\n\(log.joined(separator: "\n"))")
          }
        }
    }
}

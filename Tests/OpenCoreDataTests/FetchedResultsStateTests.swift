import Foundation
@testable import OpenCoreData
import OpenCoreDataPredicates
import OpenCoreDataTesting
import Testing

/// The controller's sections after a batch of changes, against a reference that sorts every shown row
/// from scratch: `FetchedResultsState.apply` places few changes in a large section by binary search and
/// many by walking and merging the section, and both must give the same rows and the same old and new
/// places. Seeded; each failure names its seed.
@Suite("Controller state: a batch of changes placed in the sections")
struct FetchedResultsStateTests {
    @Test(arguments: Array(UInt64(0)..<4))
    func applyAgreesWithASortFromScratch(_ chunk: UInt64) throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let objects = (0..<600).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Item", into: context) }
            for i in 0..<40 { try round(seed: chunk &* 1_000 &+ UInt64(i), objects) }
        }
    }

    func round(seed: UInt64, _ objects: [NSManagedObject]) throws {
        var rng = SeededRandom(seed: seed)
        let groups = Array(["a", "b", "c", "d", "e", "f"].prefix(rng.int(1...6)))
        let order = FetchedOrder(descriptors: [NSSortDescriptor(key: "group", ascending: true),
                                               NSSortDescriptor(key: "rank", ascending: rng.chance(0.5))])
        func entry(_ i: Int, _ rng: inout SeededRandom) -> FetchedEntry {
            let group = rng.pick(groups)
            return FetchedEntry(object: objects[i], section: group, keys: [.string(group), .int(Int64(rng.int(0...40)))], tiebreak: Int64(i))
        }
        func sections(_ shown: [Int: FetchedEntry], title: (String) -> String) -> [FetchedSection] {
            var result: [FetchedSection] = []
            for e in shown.values.sorted(by: order.precedes) {
                if result.last?.name != e.section { result.append(FetchedSection(name: e.section, indexTitle: title(e.section), entries: [])) }
                result[result.count - 1].entries.append(e)
            }
            return result
        }
        func places(_ sections: [FetchedSection]) -> [ObjectIdentifier: IndexPath] {
            var result: [ObjectIdentifier: IndexPath] = [:]
            for (s, section) in sections.enumerated() {
                for (r, e) in section.entries.enumerated() { result[ObjectIdentifier(e.object)] = IndexPath(row: r, section: s) }
            }
            return result
        }

        var shown: [Int: FetchedEntry] = [:]
        for i in objects.indices.shuffled(using: &rng).prefix(rng.int(0...objects.count)) { shown[i] = entry(i, &rng) }
        let before = sections(shown) { "old " + $0 }
        var state = FetchedResultsState(before, order: order)

        // Few changes (binary searches in sections of hundreds) or many (walks and merges).
        let count = rng.chance(0.5) ? rng.int(1...3) : rng.int(1...300)
        var leaving: [FetchedEntry] = [], arriving: [FetchedEntry] = []
        for i in objects.indices.shuffled(using: &rng).prefix(count) {
            if let e = shown[i] { leaving.append(e) }
            shown[i] = rng.chance(0.7) ? entry(i, &rng) : nil
            if let e = shown[i] { arriving.append(e) }
        }
        let kept = Set(before.filter { s in s.entries.contains { e in !leaving.contains { $0.object === e.object } } }.map(\.name))
        let after = sections(shown) { (kept.contains($0) ? "old " : "new ") + $0 }
        let found = state.apply(removing: leaving, inserting: arriving) { "new " + $0 }

        let label = "seed \(seed): \(leaving.count) leaving, \(arriving.count) arriving"
        #expect(state.sections.map(\.name) == after.map(\.name), "\(label)")
        #expect(state.sections.map(\.indexTitle) == after.map(\.indexTitle), "\(label)")
        // Objects by their number, so that a failure prints small numbers.
        let number = Dictionary(uniqueKeysWithValues: objects.enumerated().map { (ObjectIdentifier($1), $0) })
        func numbered(_ sections: [FetchedSection]) -> [[Int]] { sections.map { $0.entries.map { number[ObjectIdentifier($0.object)]! } } }
        func numbered(_ places: [ObjectIdentifier: IndexPath], of entries: [FetchedEntry]) -> [Int: IndexPath] {
            Dictionary(uniqueKeysWithValues: entries.map { e in (number[ObjectIdentifier(e.object)]!, places[ObjectIdentifier(e.object)]) })
                .compactMapValues { $0 }
        }
        #expect(numbered(state.sections) == numbered(after), "\(label)")
        #expect(numbered(found.old, of: leaving) == numbered(places(before), of: leaving), "\(label): old places")
        #expect(numbered(found.new, of: arriving) == numbered(places(after), of: arriving), "\(label): new places")
        #expect(found.old.count == leaving.count && found.new.count == arriving.count, "\(label): a place for each")
        for (i, object) in objects.enumerated() {
            #expect(state.entry(for: object)?.keys == shown[i]?.keys, "\(label): the entry of object \(i)")
        }
    }
}

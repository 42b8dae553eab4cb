import Foundation
@testable import OpenCoreData
import OpenCoreDataPredicates
import OpenCoreDataTesting
import Testing

/// The controller's pure step (`FetchedResultsState.applying`, step (b) of its update) driven directly
/// with seeded histories of change sets, against a reference that sorts every shown row from scratch
/// after each step (refetch-and-compare without a store): the sections, their index titles and each
/// object's entry must be the reference's, and the batch, replayed on a headless table view with
/// UIKit's rules, must turn the old rows into the new ones. Each failure names its seed.
@Suite("Controller update: the pure step against a sort from scratch")
struct ControllerPureStepTests {
    @Test(arguments: Array(UInt64(0)..<8))
    func seededHistoriesAgreeWithASortFromScratch(_ chunk: UInt64) throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let objects = (0..<80).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Item", into: context) }
            for i in 0..<25 { try history(seed: chunk &* 1_000 &+ UInt64(i), objects) }
        }
    }

    /// The shown rows of a history step, by object number.
    typealias Shown = [Int: FetchedEntry]

    func history(seed: UInt64, _ objects: [NSManagedObject]) throws {
        var rng = SeededRandom(seed: seed)
        let groups = Array(["a", "b", "c", "d", "e"].prefix(rng.int(1...5)))
        let sectioned = rng.chance(0.6), whole = rng.chance(0.5)
        let order = FetchedOrder(descriptors: [NSSortDescriptor(key: "group", ascending: true),
                                               NSSortDescriptor(key: "rank", ascending: rng.chance(0.5))])
        func entry(_ i: Int, _ rng: inout SeededRandom) -> FetchedEntry {
            let group = rng.pick(groups)
            return FetchedEntry(object: objects[i], section: sectioned ? group : "", keys: [.string(group), .int(Int64(rng.int(0...9)))],
                                tiebreak: Int64(i))
        }
        var shown: Shown = [:]
        for i in objects.indices where rng.chance(0.4) { shown[i] = entry(i, &rng) }
        var state = FetchedResultsState(reference(shown, order: order, titles: [:]), order: order)
        let number = Dictionary(uniqueKeysWithValues: objects.enumerated().map { (ObjectIdentifier($1), $0) })

        for step in 0..<20 {
            let label = "seed \(seed), step \(step)"
            // A change set: each picked object once; an update of unread keys, new values, or leaving.
            var changes: [FetchedChange] = []
            var next = shown
            for i in objects.indices.shuffled(using: &rng).prefix(rng.chance(0.5) ? rng.int(1...2) : rng.int(1...40)) {
                if shown[i] != nil, rng.chance(0.15) {
                    changes.append(FetchedChange(object: objects[i], entry: nil, updated: true, keepsPlace: true))
                    continue
                }
                let e = rng.chance(0.75) ? entry(i, &rng) : nil
                next[i] = e
                // A shown object whose values changed is announced updated; one not shown may be either
                // (an update that makes it match, or an insert).
                changes.append(FetchedChange(object: objects[i], entry: e, updated: shown[i] != nil || rng.chance(0.5), keepsPlace: false))
            }
            let oldSections = state.sections
            let titles = Dictionary(oldSections.map { ($0.name, $0.indexTitle) }, uniquingKeysWith: { a, _ in a })
            let (after, update) = state.applying(changes, keepingOldSections: whole) { "new " + $0 }
            state = after
            shown = next
            let expected = reference(shown, order: order, titles: titles)

            func numbered(_ sections: [FetchedSection]) -> [[Int]] { sections.map { $0.entries.map { number[ObjectIdentifier($0.object)]! } } }
            #expect(state.sections.map(\.name) == expected.map(\.name), "\(label)")
            #expect(state.sections.map(\.indexTitle) == expected.map(\.indexTitle), "\(label): index titles")
            #expect(numbered(state.sections) == numbered(expected), "\(label): rows")
            for (i, object) in objects.enumerated() {
                #expect(state.entry(for: object)?.keys == shown[i]?.keys, "\(label): the entry of object \(i)")
            }
            if let old = update.oldSections {
                #expect(old.map(\.name) == oldSections.map(\.name), "\(label): the old sections handed to delivery")
                if whole { #expect(numbered(old) == numbered(oldSections), "\(label): the whole old sections") }
            }
            let replayed = replay(update.batch, from: oldSections, to: state.sections, number: number)
            #expect(replayed.errors.isEmpty, "\(label): \(replayed.errors)")
            #expect(replayed.rows == numbered(expected).map { $0.map(String.init) }, "\(label): the batch replayed")
        }
    }

    /// The sections of `shown` sorted from scratch; a section keeps its old index title, a new one is
    /// titled as the pure step was told to.
    func reference(_ shown: Shown, order: FetchedOrder, titles: [String: String?]) -> [FetchedSection] {
        var result: [FetchedSection] = []
        for e in shown.values.sorted(by: order.precedes) {
            if result.last?.name != e.section {
                result.append(FetchedSection(name: e.section, indexTitle: titles[e.section] ?? "new " + e.section, entries: []))
            }
            result[result.count - 1].entries.append(e)
        }
        return result
    }

    /// The batch played on a headless table showing `old`, with the data source then showing `new`.
    func replay(_ batch: ChangeTracker.Batch, from old: [FetchedSection], to new: [FetchedSection],
                number: [ObjectIdentifier: Int]) -> (errors: [String], rows: [[String]]) {
        final class Source { var sections: [FetchedSection] = [] }
        let source = Source()
        source.sections = old
        let table = HeadlessTableView(numberOfSections: { source.sections.count },
                                      numberOfRows: { source.sections[$0].entries.count },
                                      cell: { "\(number[ObjectIdentifier(source.sections[$0.section].entries[$0.row].object)]!)" })
        table.reloadData()
        source.sections = new
        guard !batch.isEmpty else { return (table.errors, table.rows) }
        table.beginUpdates()
        for change in batch.sections {
            if change.type == .insert { table.insertSections(IndexSet(integer: change.index), with: .fade) }
            if change.type == .delete { table.deleteSections(IndexSet(integer: change.index), with: .fade) }
        }
        for change in batch.objects {
            switch change.type {
            case .insert: table.insertRows(at: [change.new!], with: .fade)
            case .delete: table.deleteRows(at: [change.old!], with: .fade)
            case .update: table.reloadRows(at: [change.old!], with: .none)
            case .move: table.moveRow(at: change.old!, to: change.new!)
            }
        }
        table.endUpdates()
        return (table.errors, table.rows)
    }
}

/// The pure step under `fetchLimit`/`fetchOffset` (`FetchedWindow.apply`), with the edge read from a
/// reference that sorts every row from scratch, as the collect step reads it from the store: the known
/// rows must stay the first rows of the results, and the window their slice. Each failure names its seed.
@Suite("Controller update: the window's pure step against a sort from scratch")
struct WindowPureStepTests {
    @Test(arguments: Array(UInt64(0)..<4))
    func seededHistoriesKeepTheKnownRowsAPrefixOfTheResults(_ chunk: UInt64) throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let objects = (0..<80).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Item", into: context) }
            for i in 0..<25 { history(seed: 50_000 &+ chunk &* 1_000 &+ UInt64(i), objects) }
        }
    }

    func history(seed: UInt64, _ objects: [NSManagedObject]) {
        var rng = SeededRandom(seed: seed)
        let order = FetchedOrder(descriptors: [NSSortDescriptor(key: "rank", ascending: rng.chance(0.5))])
        func entry(_ i: Int, _ rng: inout SeededRandom) -> FetchedEntry {
            FetchedEntry(object: objects[i], section: "", keys: [.int(Int64(rng.int(0...30)))], tiebreak: Int64(i))
        }
        let limit = rng.chance(0.2) ? 0 : rng.int(1...8), offset = limit == 0 ? rng.int(1...6) : rng.int(0...6)
        var shown: [Int: FetchedEntry] = [:]
        for i in objects.indices where rng.chance(rng.chance(0.5) ? 0.2 : 0.7) { shown[i] = entry(i, &rng) }
        let number = Dictionary(uniqueKeysWithValues: objects.enumerated().map { (ObjectIdentifier($1), $0) })
        func numbered<C: Collection>(_ rows: C) -> [Int] where C.Element == FetchedEntry { rows.map { number[ObjectIdentifier($0.object)]! } }
        func results() -> [FetchedEntry] { shown.values.sorted(by: order.precedes) }
        /// What the store answers for the rows from position `from` on, at most `asked` (0: all).
        func edge(from: Int, asked: Int) -> [FetchedEntry] {
            Array(results().dropFirst(from).prefix(asked == 0 ? Int.max : asked))
        }

        var window = FetchedWindow(offset: offset, limit: limit, order: order)
        window.append(edge: edge(from: 0, asked: window.edgeLimit), asked: window.edgeLimit)
        for step in 0..<30 {
            let label = "seed \(seed), step \(step), offset \(offset), limit \(limit)"
            var changes = FetchedChangeSet()
            for i in objects.indices.shuffled(using: &rng).prefix(rng.int(1...12)) {
                if shown[i] != nil, rng.chance(0.15) {
                    changes.gone.append(objects[i].objectID)  // a merged delete of a row never registered
                    shown[i] = nil
                    continue
                }
                let e = rng.chance(0.7) ? entry(i, &rng) : nil
                changes.objects.append(FetchedChange(object: objects[i], entry: e, updated: shown[i] != nil, keepsPlace: false))
                shown[i] = e
            }
            window.apply(changes)
            if window.needsEdge {
                let asked = window.edgeLimit
                window.append(edge: edge(from: window.rows.count, asked: asked), asked: asked)
            }
            window.trim()
            let expected = results()
            #expect(numbered(window.rows) == numbered(expected.prefix(window.rows.count)), "\(label): the known rows")
            let end = limit == 0 ? expected.count : min(offset + limit, expected.count)
            #expect(numbered(window.rows[window.windowRange]) == numbered(expected[min(offset, end)..<end]), "\(label): the window")
            if window.complete { #expect(window.rows.count == expected.count, "\(label): complete") }
        }
    }
}

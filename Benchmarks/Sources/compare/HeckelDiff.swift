import OpenCoreData

/// Figure 7's baseline for many changes: what an app that refetches would diff with instead of
/// `CollectionDifference` (Myers, O(n·d)): Paul Heckel's linear-time algorithm ("A technique for
/// isolating differences between files", CACM 1978), the one DifferenceKit and IGListKit build on,
/// here over sections of identified items, written for this benchmark.
///
/// The result is a UIKit-style batch, as the controller's delegate receives one: sections deleted (old
/// indexes) and inserted (new indexes); items deleted (old index paths), inserted (new index paths),
/// moved (old to new) and updated in place (old index paths, content changed). Items of a deleted or
/// inserted section are implied by the section, and an item leaving a deleted section or entering an
/// inserted one is a delete plus an insert, as the controller reports it. A surviving item is a move
/// when its rank among the items that stay in its section changed (DifferenceKit's rule: it reports more
/// moves than the controller, which keeps a longest increasing subsequence in place, at no extra cost).
struct HeckelDiff<ID: Hashable, Content: Equatable> {
    /// An item's place (DifferenceKit's `ElementPath`; lighter than Foundation's `IndexPath`).
    struct ItemPath: Comparable {
        var item: Int
        var section: Int
        static func < (a: ItemPath, b: ItemPath) -> Bool { (a.section, a.item) < (b.section, b.item) }
    }

    /// One section: its name (unique) and its items (each ID once in the whole list).
    struct Section {
        var name: String
        var items: [(id: ID, content: Content)]
    }

    var deletedSections: [Int] = []
    var insertedSections: [Int] = []
    var deleted: [ItemPath] = []
    var inserted: [ItemPath] = []
    var moved: [(from: ItemPath, to: ItemPath)] = []
    var updated: [ItemPath] = []

    /// The number of item and section changes.
    var count: Int { deletedSections.count + insertedSections.count + deleted.count + inserted.count + moved.count + updated.count }

    /// The batch that turns `old` into `new`.
    init(old: [Section], new: [Section]) {
        // Sections by name: names are unique, so Heckel's symbol table is a dictionary of positions.
        var newSectionIndex: [String: Int] = [:]
        newSectionIndex.reserveCapacity(new.count)
        for (s, section) in new.enumerated() { newSectionIndex[section.name] = s }
        var oldToNewSection = Array(repeating: -1, count: old.count)
        var newIsMatched = Array(repeating: false, count: new.count)
        for (s, section) in old.enumerated() {
            if let t = newSectionIndex[section.name] { oldToNewSection[s] = t; newIsMatched[t] = true } else { deletedSections.append(s) }
        }
        for t in new.indices where !newIsMatched[t] { insertedSections.append(t) }

        // Items, flattened. Pass 1-2 of Heckel: the symbol table counts each ID's occurrences on both
        // sides and remembers its old position; pass 3: IDs that occur once on each side are matched.
        var newFlat: [(id: ID, content: Content, section: Int, row: Int)] = []
        var oldFlat: [(id: ID, content: Content, section: Int, row: Int)] = []
        for (s, section) in new.enumerated() { for (r, item) in section.items.enumerated() { newFlat.append((item.id, item.content, s, r)) } }
        for (s, section) in old.enumerated() { for (r, item) in section.items.enumerated() { oldFlat.append((item.id, item.content, s, r)) } }
        var table: [ID: Int] = [:]
        table.reserveCapacity(newFlat.count)
        var symbols: [HeckelSymbol] = []
        symbols.reserveCapacity(newFlat.count)
        var newSymbol = [Int](), oldSymbol = [Int]()
        newSymbol.reserveCapacity(newFlat.count)
        oldSymbol.reserveCapacity(oldFlat.count)
        for item in newFlat {
            let k: Int
            if let found = table[item.id] { k = found } else { k = symbols.count; table[item.id] = k; symbols.append(HeckelSymbol()) }
            symbols[k].newCount += 1
            newSymbol.append(k)
        }
        for (i, item) in oldFlat.enumerated() {
            let k: Int
            if let found = table[item.id] { k = found } else { k = symbols.count; table[item.id] = k; symbols.append(HeckelSymbol()) }
            symbols[k].oldCount += 1
            symbols[k].oldIndex = i
            oldSymbol.append(k)
        }
        var newToOld = Array(repeating: -1, count: newFlat.count)
        var oldToNew = Array(repeating: -1, count: oldFlat.count)
        for j in newFlat.indices {
            let s = symbols[newSymbol[j]]
            if s.newCount == 1, s.oldCount == 1 { newToOld[j] = s.oldIndex; oldToNew[s.oldIndex] = j }
        }
        // Passes 4-5: a match extends to equal neighbours that were not unique (none when IDs are).
        for j in newFlat.indices.dropLast() {
            let i = newToOld[j]
            if i >= 0, i + 1 < oldFlat.count, newToOld[j + 1] < 0, oldToNew[i + 1] < 0, newSymbol[j + 1] == oldSymbol[i + 1] {
                newToOld[j + 1] = i + 1; oldToNew[i + 1] = j + 1
            }
        }
        for j in newFlat.indices.reversed().dropLast() {
            let i = newToOld[j]
            if i > 0, newToOld[j - 1] < 0, oldToNew[i - 1] < 0, newSymbol[j - 1] == oldSymbol[i - 1] {
                newToOld[j - 1] = i - 1; oldToNew[i - 1] = j - 1
            }
        }

        // An item stays in its section when both sections survive and are the same one.
        func stays(old i: Int, new j: Int) -> Bool {
            oldToNewSection[oldFlat[i].section] == newFlat[j].section
        }
        let deletedSet = Set(deletedSections), insertedSet = Set(insertedSections)
        // Per section, how many items before each row leave it (old) or enter it (new): ranks among stayers.
        var oldRank = Array(repeating: 0, count: oldFlat.count), newRank = Array(repeating: 0, count: newFlat.count)
        var leftBefore = 0
        for i in oldFlat.indices {
            if oldFlat[i].row == 0 { leftBefore = 0 }
            oldRank[i] = oldFlat[i].row - leftBefore
            let j = oldToNew[i]
            if j < 0 || !stays(old: i, new: j) { leftBefore += 1 }
        }
        var enteredBefore = 0
        for j in newFlat.indices {
            if newFlat[j].row == 0 { enteredBefore = 0 }
            newRank[j] = newFlat[j].row - enteredBefore
            let i = newToOld[j]
            if i < 0 || !stays(old: i, new: j) { enteredBefore += 1 }
        }
        for (i, item) in oldFlat.enumerated() where oldToNew[i] < 0 && !deletedSet.contains(item.section) {
            deleted.append(ItemPath(item: item.row, section: item.section))
        }
        for (j, item) in newFlat.enumerated() {
            let to = ItemPath(item: item.row, section: item.section)
            let i = newToOld[j]
            guard i >= 0 else {
                if !insertedSet.contains(item.section) { inserted.append(to) }
                continue
            }
            let from = ItemPath(item: oldFlat[i].row, section: oldFlat[i].section)
            let leavesDeleted = deletedSet.contains(from.section), entersInserted = insertedSet.contains(to.section)
            if leavesDeleted || entersInserted {
                if !leavesDeleted { deleted.append(from) }
                if !entersInserted { inserted.append(to) }
            } else if !stays(old: i, new: j) || oldRank[i] != newRank[j] {
                moved.append((from, to))
            } else if oldFlat[i].content != item.content {
                updated.append(from)
            }
        }
    }

    /// `old` with this batch applied as UIKit applies one (deletes and move sources in old coordinates,
    /// then inserts and move destinations in new ones; an inserted section's items come from `new`):
    /// equal to `new`'s IDs when the batch is right. Used to check the diff before it is measured.
    func applied(to old: [Section], new: [Section]) -> [(name: String, ids: [ID])] {
        var sections: [(name: String, ids: [ID]?)] = old.map { ($0.name, $0.items.map(\.id)) }
        var removals = deleted + moved.map(\.from)
        removals.sort(by: >)
        for path in removals { sections[path.section].ids!.remove(at: path.item) }
        for s in deletedSections.sorted(by: >) { sections.remove(at: s) }
        for s in insertedSections.sorted() { sections.insert((new[s].name, new[s].items.map(\.id)), at: s) }
        var additions: [(at: ItemPath, id: ID)] = inserted.map { ($0, new[$0.section].items[$0.item].id) }
        additions += moved.map { ($0.to, old[$0.from.section].items[$0.from.item].id) }
        additions.sort { $0.at < $1.at }
        for a in additions { sections[a.at.section].ids!.insert(a.id, at: a.at.item) }
        return sections.map { ($0.name, $0.ids ?? []) }
    }
}

/// One line of Heckel's symbol table: how often an ID occurs on each side, and its last old position.
private struct HeckelSymbol {
    var newCount = 0, oldCount = 0, oldIndex = -1
}

/// The diff figure 7's baseline computes: object IDs, with the price as the content an update changes.
typealias ControllerDiff = HeckelDiff<NSManagedObjectID, Int32>

/// Checks ``HeckelDiff`` before figure 7 measures it: on small cases with every kind of change, and on
/// the benchmark's own first diff. A wrong diff throws: a baseline that computes the wrong answer
/// would make the comparison meaningless.
enum HeckelDiffCheck {
    /// Small cases: moves within and across sections, inserts, deletes, updates, a deleted section, an
    /// inserted one, and items leaving the one and entering the other.
    static func run() throws {
        typealias D = HeckelDiff<String, Int>
        func sections(_ spec: [(String, [String])], content: [String: Int] = [:]) -> [D.Section] {
            spec.map { D.Section(name: $0.0, items: $0.1.map { ($0, content[$0] ?? 0) }) }
        }
        let cases: [([(String, [String])], [(String, [String])])] = [
            ([("a", ["1", "2", "3", "4"])], [("a", ["4", "1", "2", "3"])]),
            ([("a", ["1", "2", "3"]), ("b", ["4", "5"])], [("a", ["2", "5", "3"]), ("b", ["6", "4", "1"])]),
            ([("a", ["1", "2"]), ("b", ["3", "4"]), ("c", ["5"])], [("a", ["2", "4"]), ("c", ["5", "3", "7"]), ("d", ["1", "8"])]),
            ([], [("a", ["1"])]),
            ([("a", ["1", "2"])], []),
            ([("a", ["1", "2", "3", "4", "5", "6"])], [("a", ["6", "5", "4", "3", "2", "1"])]),
        ]
        for (old, new) in cases {
            let o = sections(old), n = sections(new)
            try check(D(old: o, new: n), old: o, new: n)
        }
        // An update in place: same IDs, same order, one content changed.
        let o = sections([("a", ["1", "2", "3"])]), n = sections([("a", ["1", "2", "3"])], content: ["2": 1])
        let d = D(old: o, new: n)
        guard d.updated == [.init(item: 1, section: 0)], d.count == 1 else {
            throw MismatchError(description: "Heckel diff: an update in place gave \(d.count) changes, updated \(d.updated)")
        }
    }

    /// Throws unless `diff` applied to `old` gives `new`'s IDs, section by section.
    static func check<ID, Content>(_ diff: HeckelDiff<ID, Content>, old: [HeckelDiff<ID, Content>.Section],
                                   new: [HeckelDiff<ID, Content>.Section]) throws {
        let result = diff.applied(to: old, new: new)
        let expected = new.map { ($0.name, $0.items.map(\.id)) }
        guard result.count == expected.count, zip(result, expected).allSatisfy({ $0.name == $1.0 && $0.ids == $1.1 }) else {
            throw MismatchError(description: "Heckel diff: applying the batch to the old sections does not give the new ones")
        }
    }
}

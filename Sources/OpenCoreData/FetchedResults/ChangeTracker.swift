import Foundation

/// Turns the old and new positions of the changed objects into one UIKit-valid batch: sections first,
/// then objects; deletes and move sources in old coordinates, inserts and move destinations in new ones,
/// updates at the old index path. An object whose section was deleted, or that lands in an inserted
/// section, is a delete plus an insert (UIKit cannot move out of a deleted or into an inserted section).
///
/// Within a section, an updated object is a move only if its position among the other objects changed:
/// objects that were not updated keep their relative order, so an updated object stays in place when it
/// has the same untouched neighbours as before and keeps its order with the other updated objects there
/// (a longest increasing subsequence). Pure: a function of positions, tested on its own.
enum ChangeTracker {
    struct SectionChange { let type: NSFetchedResultsChangeType; let index: Int }
    struct ObjectChange { let type: NSFetchedResultsChangeType; let object: NSManagedObject; let old: IndexPath?; let new: IndexPath? }
    struct Batch {
        var sections: [SectionChange] = []
        var objects: [ObjectChange] = []
        var isEmpty: Bool { sections.isEmpty && objects.isEmpty }
    }

    static func changes(oldSections: [String], newSections: [String],
                        objects: [ObjectIdentifier: (old: IndexPath?, new: IndexPath?, updated: Bool, object: NSManagedObject)]) -> Batch {
        var batch = Batch()
        // The same sections (the common case of a change): no set of names to build.
        let sameSections = oldSections == newSections
        let newNames = sameSections ? [] : Set(newSections), oldNames = sameSections ? [] : Set(oldSections)
        let deletedSections = sameSections ? [] : Set(oldSections.indices.filter { !newNames.contains(oldSections[$0]) })
        let insertedSections = sameSections ? [] : Set(newSections.indices.filter { !oldNames.contains(newSections[$0]) })
        batch.sections += deletedSections.sorted().map { SectionChange(type: .delete, index: $0) }
        batch.sections += insertedSections.sorted().map { SectionChange(type: .insert, index: $0) }

        var deletes: [ObjectChange] = [], inserts: [ObjectChange] = [], moves: [ObjectChange] = [], updates: [ObjectChange] = []
        // Per section name (present before and after): rows removed, rows added, and the survivors.
        var removedRows: [String: [Int]] = [:], addedRows: [String: [Int]] = [:]
        var survivors: [String: [(old: Int, new: Int, updated: Bool, object: NSManagedObject, oldPath: IndexPath, newPath: IndexPath)]] = [:]
        for (_, c) in objects {
            switch (c.old, c.new) {
            case (nil, nil): continue
            case (let old?, nil):
                deletes.append(.init(type: .delete, object: c.object, old: old, new: nil))
                removedRows[oldSections[old.section], default: []].append(old.row)
            case (nil, let new?):
                inserts.append(.init(type: .insert, object: c.object, old: nil, new: new))
                addedRows[newSections[new.section], default: []].append(new.row)
            case (let old?, let new?):
                let from = oldSections[old.section], to = newSections[new.section]
                if from != to {
                    removedRows[from, default: []].append(old.row)
                    addedRows[to, default: []].append(new.row)
                    if deletedSections.contains(old.section) || insertedSections.contains(new.section) {
                        deletes.append(.init(type: .delete, object: c.object, old: old, new: nil))
                        inserts.append(.init(type: .insert, object: c.object, old: nil, new: new))
                    } else {
                        moves.append(.init(type: .move, object: c.object, old: old, new: new))
                    }
                } else {
                    survivors[from, default: []].append((old.row, new.row, c.updated, c.object, old, new))
                }
            }
        }
        for (name, members) in survivors {
            let removed = (removedRows[name] ?? []).sorted(), added = (addedRows[name] ?? []).sorted()
            // Ranks among the objects that are in this section both before and after.
            let ranked = members.map { m in (m, old: m.old - countBelow(removed, m.old), new: m.new - countBelow(added, m.new)) }
            let updated = ranked.filter { $0.0.updated }
            let oldUpdatedRanks = updated.map(\.old).sorted(), newUpdatedRanks = updated.map(\.new).sorted()
            // The number of untouched objects before each updated one, before and after.
            var groups: [Int: [(old: Int, new: Int, index: Int)]] = [:]
            var moved = Set<Int>()
            for (i, u) in updated.enumerated() {
                let before = u.old - countBelow(oldUpdatedRanks, u.old)
                let after = u.new - countBelow(newUpdatedRanks, u.new)
                if before != after { moved.insert(i) } else { groups[before, default: []].append((u.old, u.new, i)) }
            }
            for (_, group) in groups where group.count > 1 {
                let byNew = group.sorted { $0.new < $1.new }
                let keep = longestIncreasing(byNew.map(\.old))
                for (k, g) in byNew.enumerated() where !keep.contains(k) { moved.insert(g.index) }
            }
            for (i, u) in updated.enumerated() {
                let m = u.0
                if moved.contains(i) {
                    moves.append(.init(type: .move, object: m.object, old: m.oldPath, new: m.newPath))
                } else {
                    updates.append(.init(type: .update, object: m.object, old: m.oldPath, new: m.newPath))
                }
            }
            // Survivors that were not updated (refetch paths pass every object) are never reported.
        }
        batch.objects = deletes.sorted { $0.old! > $1.old! } + inserts.sorted { $0.new! < $1.new! }
            + moves.sorted { $0.new! < $1.new! } + updates.sorted { $0.old! < $1.old! }
        return batch
    }

    /// How many of the sorted `values` are below `x`.
    static func countBelow(_ values: [Int], _ x: Int) -> Int {
        var lo = 0, hi = values.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if values[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The positions of one longest strictly increasing subsequence (patience sorting, O(n log n)).
    static func longestIncreasing(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = [], tailIndex: [Int] = [], previous = Array(repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            let p = countBelow(tails, v)
            if p > 0 { previous[i] = tailIndex[p - 1] }
            if p == tails.count { tails.append(v); tailIndex.append(i) } else { tails[p] = v; tailIndex[p] = i }
        }
        var result = Set<Int>()
        var k = tailIndex.last ?? -1
        while k >= 0 { result.insert(k); k = previous[k] }
        return result
    }
}

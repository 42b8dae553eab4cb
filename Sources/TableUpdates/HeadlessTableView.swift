import Foundation
import OpenCoreData

/// A table view without a screen: it applies batch updates with UIKit's rules and records UIKit's
/// "Invalid update" errors instead of crashing, so tests can drive it with a fetched results
/// controller delegate's code unchanged (`tableView.beginUpdates()`, `insertRows(at:with:)`, …).
///
/// Rows hold what the data source's `cell` closure returned when the row was inserted or reloaded, so a
/// test sees stale cells too.
public final class HeadlessTableView {
    /// Mirrors `UITableView.RowAnimation` (ignored).
    public enum RowAnimation { case fade, right, left, top, bottom, none, middle, automatic }

    public let numberOfSections: () -> Int
    public let numberOfRows: (Int) -> Int
    public let cell: (IndexPath) -> String

    /// The displayed rows, per section.
    public private(set) var rows: [[String]] = []
    /// UIKit's errors, one per failed `endUpdates()`.
    public private(set) var errors: [String] = []
    /// Batches applied so far.
    public private(set) var batches = 0

    private var depth = 0
    private var deletedSections = IndexSet(), insertedSections = IndexSet(), reloadedSections = IndexSet()
    private var deletedRows: [IndexPath] = [], insertedRows: [IndexPath] = [], reloadedRows: [IndexPath] = []
    private var movedRows: [(IndexPath, IndexPath)] = []

    public init(numberOfSections: @escaping () -> Int, numberOfRows: @escaping (Int) -> Int, cell: @escaping (IndexPath) -> String) {
        self.numberOfSections = numberOfSections
        self.numberOfRows = numberOfRows
        self.cell = cell
        reloadData()
    }

    /// Mirrors `reloadData()`.
    public func reloadData() {
        rows = (0..<numberOfSections()).map { s in (0..<numberOfRows(s)).map { cell(IndexPath(row: $0, section: s)) } }
    }

    public func beginUpdates() { depth += 1 }
    public func insertSections(_ sections: IndexSet, with animation: RowAnimation) { insertedSections.formUnion(sections); implicit() }
    public func deleteSections(_ sections: IndexSet, with animation: RowAnimation) { deletedSections.formUnion(sections); implicit() }
    public func reloadSections(_ sections: IndexSet, with animation: RowAnimation) { reloadedSections.formUnion(sections); implicit() }
    public func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) { insertedRows += indexPaths; implicit() }
    public func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) { deletedRows += indexPaths; implicit() }
    public func reloadRows(at indexPaths: [IndexPath], with animation: RowAnimation) { reloadedRows += indexPaths; implicit() }
    public func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) { movedRows.append((indexPath, newIndexPath)); implicit() }

    /// Mirrors a diffable data source's `apply(_:)`: the table shows the snapshot's sections and items,
    /// each cell configured by the `cell` closure at its position, and reloaded items are reconfigured.
    /// Records an error if the snapshot's shape disagrees with the data source.
    public func apply<Section: Hashable, Item: Hashable>(_ snapshot: NSDiffableDataSourceSnapshot<Section, Item>) {
        batches += 1
        let shape = snapshot.sectionIdentifiers.map { snapshot.numberOfItems(inSection: $0) }
        let source = (0..<numberOfSections()).map(numberOfRows)
        guard shape == source else {
            errors.append("snapshot has sections \(shape), the data source \(source)")
            return
        }
        rows = shape.enumerated().map { s, n in (0..<n).map { cell(IndexPath(row: $0, section: s)) } }
    }

    /// The user dragged a row: UIKit moves it on screen by itself, before the app updates its model.
    public func userMovesRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        let row = rows[indexPath.section].remove(at: indexPath.row)
        rows[newIndexPath.section].insert(row, at: newIndexPath.row)
    }

    /// Outside begin/end, each call is its own batch, as in UIKit.
    private func implicit() { if depth == 0 { depth = 1; endUpdates() } }

    public func endUpdates() {
        depth -= 1
        guard depth == 0 else { return }
        defer {
            deletedSections = []; insertedSections = []; reloadedSections = []
            deletedRows = []; insertedRows = []; reloadedRows = []; movedRows = []
        }
        batches += 1
        do { try apply() } catch { errors.append("\(error)"); reloadData() }
    }

    struct InvalidUpdate: Error, CustomStringConvertible {
        let description: String
    }

    private func apply() throws {
        func fail(_ m: String) -> InvalidUpdate { InvalidUpdate(description: "Invalid update: " + m) }
        let oldCounts = rows.map(\.count)
        let newSectionCount = numberOfSections()
        for s in deletedSections where s >= oldCounts.count { throw fail("attempt to delete section \(s), but there are only \(oldCounts.count) sections before the update") }
        for s in insertedSections where s >= newSectionCount { throw fail("attempt to insert section \(s) but there are only \(newSectionCount) sections after the update") }
        guard newSectionCount == oldCounts.count - deletedSections.count + insertedSections.count else {
            throw fail("invalid number of sections. The number of sections contained in the table view after the update (\(newSectionCount)) must be equal to the number of sections contained in the table view before the update (\(oldCounts.count)), plus or minus the number of sections inserted or deleted (\(insertedSections.count) inserted, \(deletedSections.count) deleted).")
        }
        // Old section → new section for the sections that stay.
        let kept = (0..<oldCounts.count).filter { !deletedSections.contains($0) }
        let targets = (0..<newSectionCount).filter { !insertedSections.contains($0) }
        let newIndexOfOld = Dictionary(uniqueKeysWithValues: zip(kept, targets))
        let newCounts = (0..<newSectionCount).map(numberOfRows)

        let moveSources = movedRows.map(\.0), moveTargets = movedRows.map(\.1)
        var seenOld = Set<IndexPath>(), seenNew = Set<IndexPath>()
        for p in deletedRows + moveSources {
            guard p.section < oldCounts.count, p.row < oldCounts[p.section] else {
                throw fail("attempt to delete row \(p.row) from section \(p.section) which only contains \(p.section < oldCounts.count ? oldCounts[p.section] : 0) rows before the update")
            }
            guard seenOld.insert(p).inserted else { throw fail("attempt to delete and move the same index path (\(p))") }
        }
        for p in reloadedRows where seenOld.contains(p) { throw fail("attempt to delete and reload the same index path (\(p))") }
        for p in reloadedRows where !(p.section < oldCounts.count && p.row < oldCounts[p.section]) {
            throw fail("attempt to reload row \(p.row) from section \(p.section) which only contains \(p.section < oldCounts.count ? oldCounts[p.section] : 0) rows before the update")
        }
        for p in insertedRows + moveTargets {
            guard p.section < newCounts.count, p.row < newCounts[p.section] else {
                throw fail("attempt to insert row \(p.row) into section \(p.section), but there are only \(p.section < newCounts.count ? newCounts[p.section] : 0) rows in section \(p.section) after the update")
            }
            guard seenNew.insert(p).inserted else { throw fail("attempt to perform an insert and a move to the same index path (\(p))") }
        }
        for (from, to) in movedRows {
            if deletedSections.contains(from.section) { throw fail("attempt to move index path (\(from)) out of section \(from.section), which is being deleted") }
            if insertedSections.contains(to.section) { throw fail("attempt to move index path (\(to)) into section \(to.section), which is being inserted") }
        }
        for (old, new) in newIndexOfOld {
            let deleted = deletedRows.filter { $0.section == old }.count
            let inserted = insertedRows.filter { $0.section == new }.count
            let movedOut = moveSources.filter { $0.section == old }.count
            let movedIn = moveTargets.filter { $0.section == new }.count
            let expected = oldCounts[old] - deleted + inserted - movedOut + movedIn
            guard newCounts[new] == expected else {
                throw fail("invalid number of rows in section \(new). The number of rows contained in an existing section after the update (\(newCounts[new])) must be equal to the number of rows contained in that section before the update (\(oldCounts[old])), plus or minus the number of rows inserted or deleted from that section (\(inserted) inserted, \(deleted) deleted) and plus or minus the number of rows moved into or out of that section (\(movedIn) moved in, \(movedOut) moved out).")
            }
        }
        for s in insertedSections {
            let inserted = insertedRows.filter { $0.section == s }.count + moveTargets.filter { $0.section == s }.count
            guard newCounts[s] == inserted else {
                throw fail("invalid number of rows in section \(s). The number of rows contained in an inserted section (\(newCounts[s])) must be equal to the number of rows inserted into it (\(inserted)).")
            }
        }
        // Apply: reloads in old coordinates, remove deleted and moved-out rows, then place inserted and
        // moved-in rows at their new index paths, in ascending order.
        var current = rows
        for p in reloadedRows { current[p.section][p.row] = "\u{0}reload" }
        var moving: [IndexPath: String] = [:]
        for (from, to) in movedRows { moving[to] = current[from.section][from.row] }
        var next: [[String?]] = Array(repeating: [], count: newSectionCount)
        for (old, new) in newIndexOfOld {
            let gone = Set((deletedRows + moveSources).filter { $0.section == old }.map(\.row))
            next[new] = current[old].enumerated().filter { !gone.contains($0.offset) }.map { $0.element }
        }
        for p in (insertedRows + moveTargets).sorted() {
            next[p.section].insert(moving[p] ?? nil, at: p.row)
        }
        rows = next.enumerated().map { s, section in
            section.enumerated().map { r, content in
                guard let content, content != "\u{0}reload" else { return cell(IndexPath(row: r, section: s)) }
                return content
            }
        }
        for s in reloadedSections where s < rows.count { rows[s] = (0..<numberOfRows(s)).map { cell(IndexPath(row: $0, section: s)) } }
    }
}

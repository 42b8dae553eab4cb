import Foundation
import TableUpdates

/// A full-screen table in a terminal, standing in for `UITableView`: sections with headers, the
/// index-title column at the right edge, a selection, a scroll offset, and UIKit's batch-update API
/// (`beginUpdates()`, `insertRows(at:with:)`, `deleteRows`, `moveRow(at:to:)`, `reloadRows`,
/// `insertSections`, `deleteSections`, `endUpdates()`). Batches follow UIKit's rules (deletes and reloads
/// in the old coordinates, inserts in the new): they are applied by ``HeadlessTableView``, which records
/// UIKit's "Invalid update" errors in ``errors`` instead of crashing. After each batch only the screen
/// lines that changed are rewritten.
///
/// Deviations from UITableView: rows are lines of text; animations are ignored; the selection does not
/// follow its row through a batch by itself (the app selects again); scrolling is by whole lines.
@MainActor open class TerminalTableView {
    /// Mirrors `UITableView.RowAnimation` (ignored: a row appears or goes at once).
    public typealias RowAnimation = HeadlessTableView.RowAnimation

    /// Mirrors `dataSource`.
    public private(set) weak var dataSource: TerminalTableViewDataSource?
    /// The title line.
    public var title = "" { didSet { draw() } }
    /// The status line.
    public var status = "" { didSet { draw() } }
    /// The help line (the keys).
    public var help = "" { didSet { draw() } }
    /// The screen size in characters.
    public internal(set) var width: Int, height: Int
    /// Mirrors `indexPathForSelectedRow`.
    public internal(set) var indexPathForSelectedRow: IndexPath?
    /// The table line at the top of the screen (`contentOffset` in lines).
    public internal(set) var contentOffset = 0

    private var rowsTable: HeadlessTableView!
    private let renderer: ScreenRenderer
    private var depth = 0

    /// A table of `dataSource`'s rows on a screen `width` × `height`, writing its bytes to `output`.
    public init(dataSource: TerminalTableViewDataSource, width: Int, height: Int, output: @escaping (String) -> Void) {
        self.dataSource = dataSource
        self.width = width
        self.height = height
        renderer = ScreenRenderer(output: output)
        rowsTable = HeadlessTableView(
            numberOfSections: { [unowned self] in self.dataSource?.numberOfSections(in: self) ?? 0 },
            numberOfRows: { [unowned self] in self.dataSource?.tableView(self, numberOfRowsInSection: $0) ?? 0 },
            cell: { [unowned self] in self.dataSource?.tableView(self, cellForRowAt: $0) ?? "" })
    }

    /// The rows on screen, per section (what the batches made of them).
    public var rows: [[String]] { rowsTable.rows }
    /// UIKit's errors, one per rejected batch.
    public var errors: [String] { rowsTable.errors }
    /// Mirrors `numberOfSections`.
    public var numberOfSections: Int { rows.count }
    /// Mirrors `numberOfRows(inSection:)`.
    public func numberOfRows(inSection section: Int) -> Int { rows[section].count }

    /// Mirrors `reloadData()`.
    open func reloadData() { rowsTable.reloadData(); clampSelection(); draw() }
    /// Mirrors `beginUpdates()`.
    open func beginUpdates() { depth += 1; rowsTable.beginUpdates() }
    /// Mirrors `endUpdates()`: applies the batch and redraws the lines that changed.
    open func endUpdates() {
        depth -= 1
        rowsTable.endUpdates()
        if depth == 0 { clampSelection(); draw() }
    }
    /// Mirrors `insertSections(_:with:)`.
    open func insertSections(_ sections: IndexSet, with animation: RowAnimation) { batch { $0.insertSections(sections, with: animation) } }
    /// Mirrors `deleteSections(_:with:)`.
    open func deleteSections(_ sections: IndexSet, with animation: RowAnimation) { batch { $0.deleteSections(sections, with: animation) } }
    /// Mirrors `reloadSections(_:with:)`.
    open func reloadSections(_ sections: IndexSet, with animation: RowAnimation) { batch { $0.reloadSections(sections, with: animation) } }
    /// Mirrors `insertRows(at:with:)`.
    open func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) { batch { $0.insertRows(at: indexPaths, with: animation) } }
    /// Mirrors `deleteRows(at:with:)`.
    open func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) { batch { $0.deleteRows(at: indexPaths, with: animation) } }
    /// Mirrors `reloadRows(at:with:)`: the rows' cells are asked for again.
    open func reloadRows(at indexPaths: [IndexPath], with animation: RowAnimation) { batch { $0.reloadRows(at: indexPaths, with: animation) } }
    /// Mirrors `moveRow(at:to:)`: the row keeps its cell (reload it to show new content).
    open func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) { batch { $0.moveRow(at: indexPath, to: newIndexPath) } }

    /// Writes the screen lines that differ from what it shows; inside a batch it waits for
    /// `endUpdates()` (the data source already answers for after the batch, the rows are from before).
    public func draw() {
        if depth == 0 { renderer.render(frame) }
    }

    /// Writes the whole screen again (after a resize, or when something else wrote to the terminal).
    public func invalidateScreen() {
        renderer.invalidate()
        draw()
    }

    /// Outside `beginUpdates()`/`endUpdates()` a call is a batch of its own, as in UIKit.
    private func batch(_ change: (HeadlessTableView) -> Void) {
        beginUpdates()
        change(rowsTable)
        endUpdates()
    }
}

import Foundation
import OpenCoreData

/// The app side of a terminal table over a fetched results controller, as the seeds' table view
/// controllers write it: the table's data source (sections, headers and index titles from the
/// controller, a cell's text from `cell`) and the controller's delegate, turning each delegate call into
/// the table's batch call. The status line shows each batch, from `controllerWillChangeContent(_:)` to
/// `controllerDidChangeContent(_:)`, with its change counts.
///
/// Mirrors nothing in Core Data: it stands in for a `UITableViewController` that is its fetched results
/// controller's delegate.
@MainActor public final class FetchedResultsTableController<Object: NSManagedObject>: TerminalTableViewDataSource {
    /// The counts of one batch.
    public struct BatchCounts: Equatable, Sendable {
        public var inserted = 0, deleted = 0, updated = 0, moved = 0, sectionsInserted = 0, sectionsDeleted = 0
    }

    /// The fetched results controller the table follows.
    public let controller: NSFetchedResultsController<Object>
    /// The table (set by ``attach(width:height:output:)``).
    public private(set) var tableView: TerminalTableView!
    /// The batches seen so far.
    public private(set) var batches = 0
    /// The counts of the batch being delivered, or of the last one.
    public private(set) var counts = BatchCounts()
    /// Called after each batch is on screen.
    public var didChangeContent: () -> Void = {}
    private let cell: (Object) -> String
    private var movedTo: [IndexPath] = []
    private var errorsBefore = 0

    /// A table controller for `controller` (on a main-queue context), describing a row with `cell`.
    public init(controller: NSFetchedResultsController<Object>, cell: @escaping (Object) -> String) {
        self.controller = controller
        self.cell = cell
    }

    /// Makes the table on a screen `width` × `height` and becomes the controller's delegate.
    public func attach(width: Int, height: Int, output: @escaping (String) -> Void) {
        tableView = TerminalTableView(dataSource: self, width: width, height: height, output: output)
        controller.delegate = self
    }

    /// The status line for the current batch: "batch N: +inserted −deleted ~updated ↕moved §+inserted −deleted".
    public var batchStatus: String {
        let c = counts
        return "batch \(batches): +\(c.inserted) −\(c.deleted) ~\(c.updated) ↕\(c.moved) §+\(c.sectionsInserted) −\(c.sectionsDeleted)"
    }

    public func numberOfSections(in tableView: TerminalTableView) -> Int { controller.sections?.count ?? 0 }
    public func tableView(_ tableView: TerminalTableView, numberOfRowsInSection section: Int) -> Int {
        controller.sections?[section].numberOfObjects ?? 0
    }
    public func tableView(_ tableView: TerminalTableView, cellForRowAt indexPath: IndexPath) -> String {
        cell(controller.object(at: indexPath))
    }
    public func tableView(_ tableView: TerminalTableView, titleForHeaderInSection section: Int) -> String? {
        controller.sections.flatMap { section < $0.count ? $0[section].name : nil }
    }
    public func sectionIndexTitles(for tableView: TerminalTableView) -> [String]? { controller.sectionIndexTitles }
    public func tableView(_ tableView: TerminalTableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int {
        controller.section(forSectionIndexTitle: title, at: index)
    }
}

extension FetchedResultsTableController: @preconcurrency NSFetchedResultsControllerDelegate {
    /// `controllerWillChangeContent(_:)` → `tableView.beginUpdates()`; the status line opens the batch.
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        batches += 1
        counts = BatchCounts()
        movedTo = []
        errorsBefore = tableView.errors.count
        tableView.status = "\(batchStatus)  controllerWillChangeContent…"  // drawn with the batch
        tableView.beginUpdates()
    }

    /// A section insert → `insertSections`, a delete → `deleteSections`.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                           atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        switch type {
        case .insert: counts.sectionsInserted += 1; tableView.insertSections(IndexSet(integer: sectionIndex), with: .fade)
        case .delete: counts.sectionsDeleted += 1; tableView.deleteSections(IndexSet(integer: sectionIndex), with: .fade)
        default: break
        }
    }

    /// insert → `insertRows`, delete → `deleteRows`, update → `reloadRows` (one line redrawn), move →
    /// `moveRow(at:to:)` (the moved row is reloaded after the batch, since a move implies an update).
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                           for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        switch type {
        case .insert: counts.inserted += 1; tableView.insertRows(at: [newIndexPath!], with: .fade)
        case .delete: counts.deleted += 1; tableView.deleteRows(at: [indexPath!], with: .fade)
        case .update: counts.updated += 1; tableView.reloadRows(at: [indexPath!], with: .none)
        case .move:
            counts.moved += 1
            tableView.moveRow(at: indexPath!, to: newIndexPath!)
            movedTo.append(newIndexPath!)
        }
    }

    /// `controllerDidChangeContent(_:)` → `tableView.endUpdates()`; the status line closes the batch.
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        tableView.endUpdates()
        if !movedTo.isEmpty { tableView.reloadRows(at: movedTo, with: .none) }
        let failure = tableView.errors.count > errorsBefore ? "  UIKit would reject: \(tableView.errors.last!)" : ""
        tableView.status = "\(batchStatus)  …controllerDidChangeContent\(failure)"
        didChangeContent()
    }
}

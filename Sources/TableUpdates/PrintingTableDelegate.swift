import Foundation
import OpenCoreData

/// A fetched results controller delegate written the way the seeds' table view controllers write theirs:
/// it prints each call and applies it to a ``HeadlessTableView`` (`beginUpdates()`, `insertRows(at:with:)`,
/// …, `endUpdates()`). The demos use it so that a reader sees what a table would be told.
///
/// Mirrors nothing in Core Data: it stands in for the app's `UITableViewController` conforming to
/// `NSFetchedResultsControllerDelegate`.
public final class PrintingTableDelegate: NSFetchedResultsControllerDelegate {
    /// The table the calls are applied to; set it before the first change.
    public var table: HeadlessTableView!
    /// How many `controllerDidChangeContent(_:)` calls were seen.
    public private(set) var batches = 0
    /// The text printed for a changed object.
    private let describe: (Any) -> String
    /// The app's `sectionIndexTitleForSectionName` answer; `nil` keeps the controller's own title.
    private let indexTitle: ((String) -> String?)?

    /// A delegate that prints objects with `describe` and, when `indexTitle` is given, answers
    /// `controller(_:sectionIndexTitleForSectionName:)` with it.
    public init(describe: @escaping (Any) -> String, indexTitle: ((String) -> String?)? = nil) {
        self.describe = describe
        self.indexTitle = indexTitle
    }

    private func path(_ p: IndexPath?) -> String { p.map { "[\($0.section), \($0.row)]" } ?? "nil" }

    /// Mirrors `controllerWillChangeContent(_:)` → `tableView.beginUpdates()`.
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        print("controllerWillChangeContent → tableView.beginUpdates()")
        table.beginUpdates()
    }

    /// Mirrors `controller(_:didChange:atSectionIndex:for:)` → `insertSections` / `deleteSections`.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                           atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        print("  section \(type) at \(sectionIndex) (\(sectionInfo.name))")
        switch type {
        case .insert: table.insertSections(IndexSet(integer: sectionIndex), with: .fade)
        case .delete: table.deleteSections(IndexSet(integer: sectionIndex), with: .fade)
        default: break
        }
    }

    /// Mirrors `controller(_:didChange:at:for:newIndexPath:)`; a move deletes the row and inserts it
    /// anew, as seeds 001 and 003 do (a move implies an update).
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                           for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        print("  object \(type) at \(path(indexPath)) new \(path(newIndexPath)): \(describe(anObject))")
        switch type {
        case .insert: table.insertRows(at: [newIndexPath!], with: .fade)
        case .delete: table.deleteRows(at: [indexPath!], with: .fade)
        case .update: table.reloadRows(at: [indexPath!], with: .none)
        case .move:
            table.deleteRows(at: [indexPath!], with: .fade)
            table.insertRows(at: [newIndexPath!], with: .fade)
        }
    }

    /// Mirrors `controller(_:sectionIndexTitleForSectionName:)`.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        indexTitle.map { $0(sectionName) } ?? controller.sectionIndexTitle(forSectionName: sectionName)
    }

    /// Mirrors `controllerDidChangeContent(_:)` → `tableView.endUpdates()`; UIKit's error, if any, is printed.
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        table.endUpdates()
        batches += 1
        print("controllerDidChangeContent → tableView.endUpdates()\(table.errors.isEmpty ? "" : " ERROR: \(table.errors)")")
    }
}

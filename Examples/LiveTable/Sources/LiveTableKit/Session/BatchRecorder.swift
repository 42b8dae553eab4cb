import Foundation
import OpenCoreData

/// A fetched results controller delegate that writes each batch of calls down as a ``Batch``, in UIKit's
/// coordinates, the way a table view controller's delegate would call the table view:
///
/// | delegate call | batch field |
/// | --- | --- |
/// | `controllerWillChangeContent(_:)` | a new batch |
/// | section `.insert` at i | `insertSections` (i, name) |
/// | section `.delete` at i | `deleteSections` i |
/// | object `.insert` at newIndexPath | `insertRows` (newIndexPath, row) |
/// | object `.delete` at indexPath | `deleteRows` indexPath |
/// | object `.update` at indexPath | `reloads` (indexPath, row) |
/// | object `.move` indexPath → newIndexPath | `moves` (from, to, row): the page keeps the element |
/// | `controllerDidChangeContent(_:)` | the batch is sent |
final class BatchRecorder: NSFetchedResultsControllerDelegate, @unchecked Sendable {
    /// Called with each finished batch, on the context's queue.
    var emit: (Batch) -> Void = { _ in }
    /// The commit and save time the merge being delivered belongs to (set on the context's queue).
    var commit = 0, savedAt = 0.0
    private var seq = 0
    private var batch: Batch?

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        seq += 1
        batch = Batch(seq: seq, commit: commit, savedAt: savedAt)
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        switch type {
        case .insert: batch?.insertSections.append(.init(index: sectionIndex, name: sectionInfo.name))
        case .delete: batch?.deleteSections.append(sectionIndex)
        default: break
        }
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard let object = anObject as? NSManagedObject else { return }
        switch type {
        case .insert: batch?.insertRows.append(.init(at: Position(newIndexPath!), row: LiveStore.row(object)))
        case .delete: batch?.deleteRows.append(Position(indexPath!))
        case .update: batch?.reloads.append(.init(at: Position(indexPath!), row: LiveStore.row(object)))
        case .move: batch?.moves.append(.init(from: Position(indexPath!), to: Position(newIndexPath!), row: LiveStore.row(object)))
        @unknown default: break
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        if let batch { emit(batch) }
        batch = nil
    }
}

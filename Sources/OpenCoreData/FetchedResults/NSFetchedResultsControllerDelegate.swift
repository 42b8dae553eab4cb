import Foundation

/// Mirrors Core Data's `NSFetchedResultsControllerDelegate`. Every method is optional (default
/// implementations do nothing). As in Core Data, a delegate that implements the snapshot method gets
/// only it; otherwise one that implements the difference method gets only it when the controller has no
/// `sectionNameKeyPath`; otherwise the classic will-change / did-change / did-change-content sequence.
/// Whether your delegate implements the snapshot, difference and section index title methods is learned
/// from the first real call of each (the default implementations report that they ran) and kept while
/// it stays the delegate; it is never called with made-up data to find out.
///
/// The controller passed is `NSFetchedResultsController<NSFetchRequestResult>`, as in Core Data's Swift
/// API: a type-erased view sharing the state of your `NSFetchedResultsController<Conversation>` (Swift
/// generics are invariant). It is a different instance: compare `fetchRequest` or use your own property
/// rather than `===`.
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// Mirrors `controllerWillChangeContent(_:)`.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// Mirrors `controller(_:didChange:at:for:newIndexPath:)`: deletes and moves' sources in old
    /// coordinates, inserts and moves' destinations in new ones, updates at the old index path.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)
    /// Mirrors `controller(_:didChange:atSectionIndex:for:)`.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)
    /// Mirrors `controllerDidChangeContent(_:)`.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// Mirrors `controller(_:sectionIndexTitleForSectionName:)`.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String?
    /// Mirrors `controller(_:didChangeContentWith:)` (snapshot). Core Data passes an
    /// `NSDiffableDataSourceSnapshotReference`; turn it into a typed snapshot with
    /// `NSDiffableDataSourceSnapshot<String, NSManagedObjectID>(snapshot)` (Linux has no `as` bridging).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference)
    /// Mirrors `controller(_:didChangeContentWith:)` (difference), for controllers without sections.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

extension NSFetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                           at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {}
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                           atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {}
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        controller.core.reportDefault()
        return nil
    }
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
        controller.core.reportDefault()
    }
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        controller.core.reportDefault()
    }
}

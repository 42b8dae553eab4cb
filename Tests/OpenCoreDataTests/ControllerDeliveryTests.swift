import Foundation
@testable import OpenCoreData
import OpenCoreDataPredicates
import OpenCoreDataTesting
import Testing

/// How a controller learns its delegate's form, and its one policy for a store error while tracking.
@Suite("Controller delivery: the delegate's form, store errors while tracking")
struct ControllerDeliveryTests {
    final class ClassicDelegate: NSFetchedResultsControllerDelegate {
        var changes = 0
        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                        at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { changes += 1 }
    }

    final class SnapshotDelegate: NSFetchedResultsControllerDelegate {
        var snapshots = 0
        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
            snapshots += 1
        }
    }

    func itemsController(_ context: NSManagedObjectContext, limit: Int = 0) throws -> NSFetchedResultsController<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true)]
        request.fetchLimit = limit
        return NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
    }

    @Test func theFormIsLearnedOncePerDelegateInstance() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let controller = try itemsController(context)
            let classic = ClassicDelegate()
            controller.delegate = classic
            try controller.performFetch()
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("B", forKey: "group")
            context.processPendingChanges()
            #expect(classic.changes == 1)
            #expect(controller.core.form.snapshot == .defaulted)
            #expect(controller.core.form.sectionIndexTitle == .defaulted)
            #expect(controller.core.form.difference == .unknown, "never asked with a section key path")
            #expect(controller.core.probe == nil, "closed outside the first calls")

            controller.delegate = classic
            #expect(controller.core.form.snapshot == .defaulted, "the same instance keeps its form")
            let snapshot = SnapshotDelegate()
            controller.delegate = snapshot
            #expect(controller.core.form.snapshot == .unknown, "another instance starts afresh")
            item.setValue(5, forKey: "rank")
            context.processPendingChanges()
            #expect(snapshot.snapshots == 1 && classic.changes == 1)
            #expect(controller.core.form.snapshot == .implemented)
        }
    }

    @Test func aStoreErrorWhileTrackingIsLoggedAndMarksTheControllerForAFetch() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            // More rows than the window (2) and its buffer (20) hold.
            for rank in 0..<30 {
                NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(rank, forKey: "rank")
            }
            try context.save()
            let controller = try itemsController(context, limit: 2)
            let delegate = ClassicDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            let shown = controller.fetchedObjects ?? []
            #expect(shown.count == 2)
            let all = NSFetchRequest<NSManagedObject>(entityName: "Item")
            all.sortDescriptors = controller.fetchRequest.sortDescriptors
            let known = Array(try context.fetch(all).prefix(22))
            // Every known row leaves and the store is gone: the window's edge cannot be read.
            let coordinator = context.persistentStoreCoordinator!
            try coordinator.remove(coordinator.persistentStores[0])
            for object in known { context.delete(object) }
            context.processPendingChanges()
            #expect(controller.core.needsRefetch)
            #expect(delegate.changes == 0, "the change that needed the store is not applied")
            #expect(controller.fetchedObjects?.count == 2)
        }
    }
}

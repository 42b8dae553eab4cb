import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Seed 002's "user-driven updates": the user reorders rows; the app writes the new order into an index
/// attribute; the table already shows the move, so the delegate ignores changes while a flag is set.
final class ReorderableList: NSFetchedResultsControllerDelegate {
    let context: NSManagedObjectContext
    let controller: NSFetchedResultsController<Item>
    var tableView: HeadlessTableView!
    var changeIsUserDriven = false

    init(context: NSManagedObjectContext) throws {
        self.context = context
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        tableView = HeadlessTableView(numberOfSections: { [unowned self] in controller.sections?.count ?? 0 },
                                      numberOfRows: { [unowned self] in controller.sections![$0].numberOfObjects },
                                      cell: { [unowned self] in content(controller.object(at: $0)) })
        controller.delegate = self
    }

    /// `tableView(_:moveRowAt:to:)`: the user moved a row; renumber the index attribute to match.
    func userMoved(from: IndexPath, to: IndexPath) {
        tableView.userMovesRow(at: from, to: to)
        changeIsUserDriven = true
        var items = controller.fetchedObjects ?? []
        let moved = items.remove(at: from.row)
        items.insert(moved, at: to.row)
        for (i, item) in items.enumerated() where item.value(forKey: "rank") as? Int != i { item.setValue(i, forKey: "rank") }
        context.processPendingChanges()
        changeIsUserDriven = false
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        guard !changeIsUserDriven else { return }
        tableView.beginUpdates()
    }
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard !changeIsUserDriven else { return }
        switch type {
        case .insert: tableView.insertRows(at: [newIndexPath!], with: .fade)
        case .delete: tableView.deleteRows(at: [indexPath!], with: .fade)
        case .update: tableView.reloadRows(at: [indexPath!], with: .none)
        case .move:
            tableView.deleteRows(at: [indexPath!], with: .fade)
            tableView.insertRows(at: [newIndexPath!], with: .fade)
        }
    }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        guard !changeIsUserDriven else { return }
        tableView.endUpdates()
    }
}

@Suite("User-driven updates (seed 002)")
struct UserDrivenUpdatesTests {
    @Test func reorderingRowsByHandKeepsTableAndResultsInStep() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            for i in 0..<5 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(i, forKey: "rank")
                item.setValue("n\(i)", forKey: "note")
            }
            try context.save()
            let list = try ReorderableList(context: context)
            list.userMoved(from: IndexPath(row: 0, section: 0), to: IndexPath(row: 3, section: 0))
            let notes = { list.controller.fetchedObjects!.map { $0.value(forKey: "note") as! String } }
            #expect(notes() == ["n1", "n2", "n3", "n0", "n4"])
            // The table moved by itself; its cells still show the old ranks, as UIKit's would, until reloaded.
            #expect(list.tableView.rows.map { $0.map { $0.split(separator: "|").last! } } == [["n1", "n2", "n3", "n0", "n4"]])
            #expect(list.tableView.batches == 0)
            // Later changes that are not the user's reach the table as usual.
            let extra = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            extra.setValue(9, forKey: "rank")
            context.processPendingChanges()
            #expect(list.tableView.errors.isEmpty)
            #expect(list.tableView.rows[0].count == 6)

        }
    }
}

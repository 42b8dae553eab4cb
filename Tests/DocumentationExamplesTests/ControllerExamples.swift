import Foundation
import OpenCoreData
import Testing

/// The examples of FetchedResultsController.md.
@Suite("Documentation: The fetched results controller")
struct ControllerExamples {
    // doc: controller-delegate
    final class TableUpdater: NSFetchedResultsControllerDelegate {
        var updates: [String] = []

        func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
            updates.append("begin")                     // tableView.beginUpdates()
        }

        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                        didChange sectionInfo: NSFetchedResultsSectionInfo,
                        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
            if type == .insert { updates.append("insert section \(sectionIndex)") }
            if type == .delete { updates.append("delete section \(sectionIndex)") }
        }

        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                        at indexPath: IndexPath?, for type: NSFetchedResultsChangeType,
                        newIndexPath: IndexPath?) {
            switch type {
            case .insert: updates.append("insert \(newIndexPath!.section).\(newIndexPath!.item)")
            case .delete: updates.append("delete \(indexPath!.section).\(indexPath!.item)")
            case .move: updates.append("move \(indexPath!.section).\(indexPath!.item) to \(newIndexPath!.section).\(newIndexPath!.item)")
            case .update: updates.append("update \(indexPath!.section).\(indexPath!.item)")
            @unknown default: break
            }
        }

        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
            updates.append("end")                       // tableView.endUpdates()
        }
    }
    // end-doc

    @Test func aSectionedControllerAndItsBatches() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let context = try libraryContainer(at: folder.storeURL).viewContext
        try addSampleBooks(to: context)
        let tableUpdater = TableUpdater()
        // doc: controller-make
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "genre", ascending: true),
                                   NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "genre", cacheName: nil)
        controller.delegate = tableUpdater
        try controller.performFetch()
        let sectionNames = controller.sections?.map(\.name)           // ["Fantasy", "Science fiction"]
        let dune = controller.object(at: IndexPath(row: 0, section: 1))    // "Dune"
        // end-doc
        #expect(sectionNames == ["Fantasy", "Science fiction"])
        #expect(dune.title == "Dune")
        // doc: controller-changes
        dune.genre = "Space opera"                  // leaves its section for a new one
        let sequel = Book(context: context)
        sequel.title = "The Tombs of Atuan"
        sequel.genre = "Fantasy"
        context.processPendingChanges()             // the delegate hears one batch now
        // begin, insert section 2, delete 1.0, insert 0.1, insert 2.0, end
        // end-doc
        #expect(tableUpdater.updates == ["begin", "insert section 2", "delete 1.0", "insert 0.1", "insert 2.0", "end"])
        #expect(controller.sections?.map(\.name) == ["Fantasy", "Science fiction", "Space opera"])
    }

    // doc: controller-snapshot
    final class SnapshotApplier: NSFetchedResultsControllerDelegate {
        var sections: [String] = []
        var rows = 0

        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                        didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
            let typed = NSDiffableDataSourceSnapshot<String, NSManagedObjectID>(snapshot)
            sections = typed.sectionIdentifiers
            rows = typed.numberOfItems                  // dataSource.apply(typed)
        }
    }
    // end-doc

    @Test func aSnapshotDelegate() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let context = try libraryContainer(at: folder.storeURL).viewContext
        try addSampleBooks(to: context)
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "genre", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "genre", cacheName: nil)
        let applier = SnapshotApplier()
        controller.delegate = applier
        try controller.performFetch()
        let book = Book(context: context)
        book.title = "Tehanu"
        book.genre = "Fantasy"
        context.processPendingChanges()
        #expect(applier.sections == ["Fantasy", "Science fiction"])
        #expect(applier.rows == 4)
    }
}

import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Histories the random test found, kept as named regressions.
@Suite("NSFetchedResultsController regressions")
struct FRCRegressionTests {
    @Test func updateThenDeleteOfAnUnsavedObjectInOneBatch() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeItemsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                          numberOfRows: { controller.sections![$0].numberOfObjects },
                                          cell: { content(controller.object(at: $0)) })
            let delegate = Seed001Delegate(tableView: table)
            controller.delegate = delegate
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue(6, forKey: "rank")
            context.processPendingChanges()
            #expect(table.rows == [["A|6|-"]])
            item.setValue(1, forKey: "rank")
            context.delete(item)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.count == 0)
            #expect(table.rows == [])
            #expect(table.errors.isEmpty, "\(table.errors)")
        }
    }

    /// Deleting an unsaved insert leaves nothing to save; the save must still announce the delete.
    @Test func saveWithNothingToWriteStillProcessesPendingChanges() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeItemsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                          numberOfRows: { controller.sections![$0].numberOfObjects },
                                          cell: { content(controller.object(at: $0)) })
            let delegate = Seed001Delegate(tableView: table)
            controller.delegate = delegate
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            context.processPendingChanges()
            context.delete(item)
            try context.save()
            #expect(table.rows == [])
        }
    }
}

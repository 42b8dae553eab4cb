import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Histories the random test found, kept as named regressions.
@Suite("NSFetchedResultsController regressions")
struct FRCRegressionTests {
    @Test func updateThenDeleteOfAnUnsavedObjectInOneBatch() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let tracked = try makeTrackedTable(request, in: context)
            defer { withExtendedLifetime(tracked) {} }
            let (controller, table) = (tracked.0, tracked.1)
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
        let context = try makeItemsContext()
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let tracked = try makeTrackedTable(request, in: context)
            defer { withExtendedLifetime(tracked) {} }
            let table = tracked.1
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            context.processPendingChanges()
            context.delete(item)
            try context.save()
            #expect(table.rows == [])
        }
    }
}

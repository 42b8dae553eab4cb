import Foundation
@_spi(StoreDiagnostics) @testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// A controller with `fetchLimit`/`fetchOffset` follows changes without refetching: it keeps the rows
/// before its window and a buffer beyond it, and asks the store only for the window's edge, bounded.
/// Counted with the store's query counter, not timed.
@Suite("fetchLimit and fetchOffset without refetching")
struct FetchedWindowTests {
    /// 200 saved items ranked 0…199, a view context and a background writer on one coordinator.
    final class Fixture {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeItemsModel())
        let view = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        var ids: [NSManagedObjectID] = []

        init() throws {
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
            view.persistentStoreCoordinator = coordinator
            writer.persistentStoreCoordinator = coordinator
            ids = try writer.performAndWait {
                let items = (0..<200).map { rank in
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer)
                    item.setValue(Int64(rank), forKey: "rank")
                    return item
                }
                try writer.save()
                return items.map(\.objectID)
            }
        }

        var queries: Int { coordinator.persistentStores[0].queryCount }

        /// Items `offset…offset+limit-1` by rank.
        func request() -> NSFetchRequest<Item> {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            request.fetchOffset = 50
            request.fetchLimit = 10
            return request
        }

        /// The writer deletes the rows of these ranks and saves; then the view context merges the deletes
        /// (a merge of deletes reads nothing). Returns the queries the merge ran, the controller's included.
        func deleteInWriterAndMerge(_ ranks: some Sequence<Int>) throws -> Int {
            let deleted = ranks.map { ids[$0] }
            try writer.performAndWait {
                for id in deleted { writer.delete(try writer.existingObject(with: id)) }
                try writer.save()
            }
            let start = queries
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [view])
            return queries - start
        }
    }

    @Test func ordinaryChangesRunNoQuery() throws {
        let f = try Fixture()
        try f.view.performAndWait {
            let request = f.request()
            let (controller, table, delegate) = try makeTrackedTable(request, in: f.view)
            defer { withExtendedLifetime(delegate) {} }
            #expect(f.view.registeredObject(for: f.ids[10]) == nil, "rows before the window stay unregistered")
            let handles = try [10, 55].map { try f.view.existingObject(with: f.ids[$0]) }
            let start = f.queries
            handles[1].setValue(Int64(-5), forKey: "rank")                  // out of the window, before it
            f.view.processPendingChanges()
            f.view.delete(handles[0])                                        // before the window
            f.view.processPendingChanges()
            let inserted = NSEntityDescription.insertNewObject(forEntityName: "Item", into: f.view)
            inserted.setValue(Int64(57), forKey: "rank")                    // into the window
            f.view.processPendingChanges()
            #expect(f.queries == start, "no query for changes inside the known rows")
            let fresh = try f.view.fetch(request)
            #expect(table.errors.isEmpty, "\(table.errors)")
            #expect(table.rows.flatMap { $0 } == fresh.map(content))
            #expect(controller.fetchedObjects!.map(\.objectID) == fresh.map(\.objectID))
        }
    }

    @Test func mergedDeletesBeforeTheWindowShiftItWithoutAQuery() throws {
        let f = try Fixture()
        let (controller, table, delegate) = try f.view.performAndWait { try makeTrackedTable(f.request(), in: f.view) }
        defer { withExtendedLifetime(delegate) {} }
        // Rows 3 and 4 were never registered by the view context: found by ID among the rows before.
        #expect(try f.deleteInWriterAndMerge([3, 4]) == 0)
        try f.view.performAndWait {
            let fresh = try f.view.fetch(f.request())
            #expect(table.errors.isEmpty, "\(table.errors)")
            #expect(table.rows.flatMap { $0 } == fresh.map(content))
            #expect(controller.fetchedObjects!.map { $0.value(forKey: "rank") as! Int64 } == Array(52..<62))
        }
    }

    @Test func theEdgeIsFetchedOnceAndBounded() throws {
        let f = try Fixture()
        let (controller, table, delegate) = try f.view.performAndWait { try makeTrackedTable(f.request(), in: f.view) }
        defer { withExtendedLifetime(delegate) {} }
        // Known: ranks 0…79 (50 before, 10 in the window, a buffer of 20). Deleting 25 of them leaves the
        // window's edge unknown: one query for the rows from position 55 to the end of the buffer.
        let queriesDuringMerge = try f.deleteInWriterAndMerge(50..<75)
        try f.view.performAndWait {
            #expect(queriesDuringMerge == 1, "one edge fetch, got \(queriesDuringMerge) queries")
            let window = try #require(controller.core.window)
            #expect(window.rows.count == 80, "the edge fetch asked for the rows up to the buffer's end only")
            let fresh = try f.view.fetch(f.request())
            #expect(table.errors.isEmpty, "\(table.errors)")
            #expect(table.rows.flatMap { $0 } == fresh.map(content))
            #expect(controller.fetchedObjects!.map { $0.value(forKey: "rank") as! Int64 } == Array(75..<85))
        }
    }
}

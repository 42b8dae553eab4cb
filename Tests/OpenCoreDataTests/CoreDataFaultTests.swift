import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Forwards to the seed-001 delegate (which drives a headless table) and records each call.
final class RecordingDelegate: NSFetchedResultsControllerDelegate {
    let table: Seed001Delegate
    var calls: [String] = []
    init(_ table: Seed001Delegate) { self.table = table }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        calls = []
        table.controllerWillChangeContent(controller)
    }
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        calls.append("section \(type) \(sectionIndex)")
        table.controller(controller, didChange: sectionInfo, atSectionIndex: sectionIndex, for: type)
    }
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        let path = { (p: IndexPath?) in p.map { "[\($0.section),\($0.row)]" } ?? "nil" }
        calls.append("\(type) \(path(indexPath))->\(path(newIndexPath))")
        table.controller(controller, didChange: anObject, at: indexPath, for: type, newIndexPath: newIndexPath)
    }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        table.controllerDidChangeContent(controller)
    }
}

/// One named test per Core Data fault listed in ARCHITECTURE.md ("Known Core Data faults we fix").
@Suite("Core Data faults we fix")
struct CoreDataFaultTests {
    /// A tracked controller over items (`group`, `rank`); `body` runs on the context's queue.
    func track(_ items: [(String, Int)], sectioned: Bool = false, limit: Int = 0, offset: Int = 0,
               _ body: (NSManagedObjectContext, [NSManagedObject], NSFetchedResultsController<Item>, HeadlessTableView, RecordingDelegate) throws -> Void) throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let objects = items.map { group, rank in
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(group, forKey: "group")
                item.setValue(rank, forKey: "rank")
                return item
            }
            try context.save()
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true)]
            request.fetchLimit = limit
            request.fetchOffset = offset
            let (controller, table, seed001) = try makeTrackedTable(request, in: context, sectionNameKeyPath: sectioned ? "group" : nil)
            let recorder = RecordingDelegate(seed001)
            controller.delegate = recorder
            try body(context, objects, controller, table, recorder)
            // Whatever happened, the table fed by the delegate shows a fresh fetch.
            let fresh = try context.fetch(request)
            #expect(table.errors.isEmpty, "\(table.errors)")
            #expect(table.rows.flatMap { $0 } == fresh.map(content))
            #expect(controller.fetchedObjects! == fresh)
        }
    }

    func insert(_ context: NSManagedObjectContext, _ group: String, _ rank: Int) {
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue(group, forKey: "group")
        item.setValue(rank, forKey: "rank")
    }

    /// Radar 16486972: after a change Core Data's controller shows more than `fetchLimit` objects.
    @Test func fetchLimitIsHonouredAfterChanges() throws {
        try track((1...6).map { ("A", $0) }, limit: 3) { context, objects, controller, _, recorder in
            insert(context, "A", 0)
            try context.save()
            #expect(controller.fetchedObjects!.map { $0.value(forKey: "rank") as! Int } == [0, 1, 2])
            #expect(recorder.calls == ["delete [0,2]->nil", "insert nil->[0,0]"])
            context.delete(objects[0])
            try context.save()
            #expect(controller.fetchedObjects!.map { $0.value(forKey: "rank") as! Int } == [0, 2, 3])
        }
    }

    /// Radar 30381905: `fetchOffset` is forgotten once changes arrive.
    @Test func fetchOffsetIsHonouredAfterChanges() throws {
        try track((1...6).map { ("A", $0) }, limit: 2, offset: 2) { context, objects, controller, _, recorder in
            #expect(controller.fetchedObjects!.map { $0.value(forKey: "rank") as! Int } == [3, 4])
            insert(context, "A", 0)
            try context.save()
            #expect(controller.fetchedObjects!.map { $0.value(forKey: "rank") as! Int } == [2, 3])
            #expect(recorder.calls == ["delete [0,1]->nil", "insert nil->[0,0]"])
            objects[5].setValue(-1, forKey: "rank")  // from outside the window to before it
            try context.save()
            #expect(controller.fetchedObjects!.map { $0.value(forKey: "rank") as! Int } == [1, 2])
        }
    }

    /// UIKit rejects a batch that inserts a row and moves another row to the same index path.
    @Test func noInsertAndMoveToTheSameIndexPath() throws {
        try track([("A", 1), ("A", 2), ("A", 3)]) { context, objects, _, _, recorder in
            objects[2].setValue(-1, forKey: "rank")
            insert(context, "A", -2)
            try context.save()
            let destinations = recorder.calls.compactMap { $0.hasPrefix("insert") || $0.hasPrefix("move") ? $0.components(separatedBy: "->").last : nil }
            #expect(Set(destinations).count == destinations.count, "\(recorder.calls)")
            #expect(recorder.calls == ["insert nil->[0,0]", "move [0,2]->[0,1]"])
        }
    }

    /// UIKit rejects a move into a section inserted in the same batch: it must be a delete plus an insert.
    @Test func aMoveIntoAnInsertedSectionIsADeleteAndAnInsert() throws {
        try track([("x", 1), ("x", 2)], sectioned: true) { context, objects, _, _, recorder in
            objects[1].setValue("y", forKey: "group")
            try context.save()
            #expect(recorder.calls == ["section insert 1", "delete [0,1]->nil", "insert nil->[1,0]"])
        }
    }

    /// The mirror case: the last object leaves its section for an existing one.
    @Test func aMoveOutOfADeletedSectionIsADeleteAndAnInsert() throws {
        try track([("x", 1), ("y", 2)], sectioned: true) { context, objects, _, _, recorder in
            objects[0].setValue("y", forKey: "group")
            try context.save()
            #expect(recorder.calls == ["section delete 0", "delete [0,0]->nil", "insert nil->[0,0]"])
        }
    }

    /// "Invalid update: invalid number of rows in section": every kind of change in one save, across sections.
    @Test func rowCountsAddUpAfterAMixedBatch() throws {
        try track([("a", 1), ("a", 2), ("b", 1), ("b", 2), ("c", 1)], sectioned: true) { context, objects, _, table, _ in
            context.delete(objects[0])
            objects[1].setValue("c", forKey: "group")
            objects[2].setValue(9, forKey: "rank")
            objects[3].setValue("note", forKey: "note")
            objects[4].setValue("d", forKey: "group")
            insert(context, "a", 0)
            insert(context, "e", 0)
            try context.save()
            #expect(table.rows.map(\.count) == [1, 2, 1, 1, 1])
        }
    }

    /// Radar 16838159: SQL and in-memory evaluation disagree on case/diacritic folding beyond ASCII.
    @Test func storeAndMemoryAgreeOnUnicodeFolding() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            for group in ["École", "ecole", "ÉCOLE", "Straße", "STRASSE", "ǅemal", "dže"] { insert(context, group, 0) }
            try context.save()
            for format in ["group CONTAINS[cd] 'éco'", "group ==[c] 'école'", "group BEGINSWITH[cd] 'DŽ'", "group LIKE[cd] 'ECO*'", "group ==[c] 'strasse'"] {
                let request = NSFetchRequest<Item>(entityName: "Item")
                request.predicate = NSPredicate(format: format)
                let fromStore = Set(try context.fetch(request).map { $0.value(forKey: "group") as! String })
                let all = try context.fetch(NSFetchRequest<Item>(entityName: "Item"))
                let inMemory = Set(all.filter { request.predicate!.evaluate(with: $0) }.map { $0.value(forKey: "group") as! String })
                #expect(fromStore == inMemory, "\(format)")
                if format.hasPrefix("group CONTAINS") { #expect(fromStore == ["École", "ecole", "ÉCOLE"]) }
            }
        }
    }

    /// Core Data's controller misses an object that a merged save makes match when its context never
    /// registered it (the "touch every updated object before merging" workaround); ours inserts it.
    /// Also: a merged delete of a row outside a `fetchOffset` window (never registered) shifts the window.
    @Test func aMergedSaveThatMakesAnUnregisteredRowMatchIsInserted() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeItemsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = coordinator
        let ids = try background.performAndWait {
            let items = [("a", 90), ("b", 10), ("c", 20), ("d", 30)].map { group, rank in
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: background)
                item.setValue(group, forKey: "group")
                item.setValue(rank, forKey: "rank")
                return item
            }
            try background.save()
            return items.map(\.objectID)
        }
        // Two view contexts: one with a filtering controller, one with a windowed controller.
        let view = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        view.persistentStoreCoordinator = coordinator
        let windowView = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        windowView.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.predicate = NSPredicate(format: "rank < 80")
        request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        let windowed = NSFetchRequest<Item>(entityName: "Item")
        windowed.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        windowed.fetchOffset = 1
        let (controller, table, delegate) = try view.performAndWait { try makeTrackedTable(request, in: view) }
        let (windowController, windowTable, windowDelegate) = try windowView.performAndWait { try makeTrackedTable(windowed, in: windowView) }
        defer { withExtendedLifetime((delegate, windowDelegate)) {} }
        #expect(view.performAndWait { view.registeredObject(for: ids[0]) } == nil, "the view context never saw item a")
        #expect(windowView.performAndWait { windowView.registeredObject(for: ids[1]) } == nil, "item b is before the window")

        var observers: [NSObjectProtocol] = []
        for context in [view, windowView] {
            observers.append(NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification,
                                                                    object: background, queue: nil) { note in
                context.performAndWait { context.mergeChanges(fromContextDidSave: note) }
            })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        try background.performAndWait {
            background.delete(try background.existingObject(with: ids[1]))  // b: before the window
            try background.save()
        }
        let windowAfterDelete = try windowView.performAndWait { try windowView.fetch(windowed) }
        #expect(windowView.performAndWait { windowTable.rows.flatMap { $0 } == windowAfterDelete.map(content) })
        #expect(windowView.performAndWait { windowController.fetchedObjects?.map { $0.value(forKey: "group") as! String } } == ["d", "a"])
        try background.performAndWait {
            try background.existingObject(with: ids[0]).setValue(19, forKey: "rank")  // a: 90 → 19, now matches
            try background.save()
        }
        let freshWindow = try windowView.performAndWait { try windowView.fetch(windowed) }
        try view.performAndWait {
            #expect(table.errors.isEmpty && windowTable.errors.isEmpty, "\(table.errors) \(windowTable.errors)")
            let fresh = try view.fetch(request)
            #expect(table.rows.flatMap { $0 } == fresh.map(content))
            #expect(controller.fetchedObjects?.map { $0.value(forKey: "group") as! String } == ["a", "c", "d"])
            #expect(windowTable.rows.flatMap { $0 } == freshWindow.map(content))
            #expect(windowController.fetchedObjects?.map { $0.value(forKey: "group") as! String } == ["c", "d"])
        }
    }
}

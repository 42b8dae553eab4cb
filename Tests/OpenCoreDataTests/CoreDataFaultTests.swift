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
}

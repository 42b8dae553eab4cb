import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Seed 001's delegate, as written there (only `tableView` is a headless table).
final class Seed001Delegate: NSFetchedResultsControllerDelegate {
    let tableView: HeadlessTableView
    init(tableView: HeadlessTableView) { self.tableView = tableView }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        tableView.beginUpdates()
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        switch type {
        case .insert:
            tableView.insertSections(IndexSet(integer: sectionIndex), with: .fade)
        case .delete:
            tableView.deleteSections(IndexSet(integer: sectionIndex), with: .fade)
        case .move:
            break
        case .update:
            break
        }
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        switch type {
        case .insert:
            tableView.insertRows(at: [newIndexPath!], with: .fade)
        case .delete:
            tableView.deleteRows(at: [indexPath!], with: .fade)
        case .update:
            tableView.reloadRows(at: [indexPath!], with: .none)
        case .move:
            tableView.deleteRows(at: [indexPath!], with: .fade)
            tableView.insertRows(at: [newIndexPath!], with: .fade)
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        tableView.endUpdates()
    }
}

/// Keeps the latest snapshot the controller handed over.
final class SnapshotDelegate: NSFetchedResultsControllerDelegate {
    var snapshot: NSDiffableDataSourceSnapshot<String, NSManagedObjectID>?
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
        self.snapshot = NSDiffableDataSourceSnapshot<String, NSManagedObjectID>(snapshot)
    }
}

/// Applies each difference to its own copy of the IDs.
final class DifferenceDelegate: NSFetchedResultsControllerDelegate {
    var ids: [NSManagedObjectID] = []
    var failed = false
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        guard let applied = ids.applying(diff) else { failed = true; return }
        ids = applied
    }
}

final class Item: NSManagedObject {}

func makeItemsModel() -> NSManagedObjectModel {
    NSManagedObjectModel(entities: [NSEntityDescription(name: "Item", managedObjectClassName: NSStringFromClass(Item.self), properties: [
        NSAttributeDescription(name: "group", type: .stringAttributeType, optional: false, defaultValue: "A"),
        NSAttributeDescription(name: "rank", type: .integer64AttributeType, optional: false, defaultValue: 0),
        NSAttributeDescription(name: "flag", type: .booleanAttributeType, optional: false, defaultValue: true),
        NSAttributeDescription(name: "note", type: .stringAttributeType),
    ])])
}

/// A context on an in-memory store of `Item`s.
func makeItemsContext() throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeItemsModel())
    try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}

/// A fetched controller whose seed-001 delegate drives a headless table (call on the context's queue).
func makeTrackedTable<T>(_ request: NSFetchRequest<T>, in context: NSManagedObjectContext, sectionNameKeyPath: String? = nil) throws
    -> (NSFetchedResultsController<T>, HeadlessTableView, Seed001Delegate) {
    let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: nil)
    try controller.performFetch()
    let table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                  numberOfRows: { controller.sections![$0].numberOfObjects },
                                  cell: { content(controller.object(at: $0) as! NSManagedObject) })
    let delegate = Seed001Delegate(tableView: table)
    controller.delegate = delegate
    return (controller, table, delegate)
}

func content(_ object: NSManagedObject) -> String {
    "\(object.value(forKey: "group")!)|\(object.value(forKey: "rank")!)|\(object.value(forKey: "note") ?? "-")"
}

@Suite("NSFetchedResultsController")
struct FetchedResultsTests {
    @Test func basicsSectionsTitlesAndErrors() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            for (group, rank) in [("apple", 9), ("apple", 1), ("banana", 5), ("cherry", 3)] {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(group, forKey: "group")
                item.setValue(rank, forKey: "rank")
            }
            try context.save()
            let request = NSFetchRequest<Item>(entityName: "Item")
            let unsorted = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            #expect(unsorted.fetchedObjects == nil)
            #expect { try unsorted.performFetch() } throws: { ($0 as NSError).code == NSCoreDataError && "\($0)".contains("requires a fetch request with sort descriptors") }
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let outOfOrder = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            #expect { try outOfOrder.performFetch() } throws: { "\($0)".contains("has an out of order section name 'apple'. Objects must be sorted by section name") }
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["apple", "banana", "cherry"])
            #expect(controller.sections?.map(\.numberOfObjects) == [2, 1, 1])
            #expect(controller.sectionIndexTitles == ["A", "B", "C"])
            #expect(controller.section(forSectionIndexTitle: "B", at: 0) == 1)
            let first = controller.object(at: IndexPath(row: 0, section: 0))
            #expect(first.value(forKey: "rank") as? Int == 1)
            #expect(controller.indexPath(forObject: first) == IndexPath(row: 0, section: 0))
            #expect(controller.fetchedObjects?.count == 4)
        }
    }

    @Test func seed001DelegateKeepsTheTableInStep() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true)]
            let tracked = try makeTrackedTable(request, in: context, sectionNameKeyPath: "group")
            defer { withExtendedLifetime(tracked) {} }
            let table = tracked.1
            let a = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            a.setValue("x", forKey: "group")
            context.processPendingChanges()
            #expect(table.rows == [["x|0|-"]])
            a.setValue("y", forKey: "group")  // a section change: delete section x, insert section y
            context.processPendingChanges()
            #expect(table.rows == [["y|0|-"]])
            #expect(table.errors.isEmpty, "\(table.errors)")
        }
    }

    /// Seeded random histories: after every batch the headless table (fed only by the seed-001 delegate)
    /// equals a fresh fetch, updated cells included; the snapshot and difference forms agree.
    @Test(arguments: Array(UInt64(0)..<8))
    func randomHistories(_ chunk: UInt64) throws {
        if let one = ProcessInfo.processInfo.environment["OCD_SEED"].flatMap(UInt64.init) {
            if chunk == 0 { try history(seed: one) }
            return
        }
        let scale = Int(ProcessInfo.processInfo.environment["OCD_RANDOM_SCALE"] ?? "") ?? 1
        for i in 0..<(1_250 * scale) {
            try history(seed: chunk &* 1_000_003 &+ UInt64(i))
        }
    }

    func history(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeItemsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let view = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        view.persistentStoreCoordinator = coordinator
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = coordinator
        background.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        view.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        let groups = ["a", "b", "c"]
        let sectioned = rng.chance(0.6)

        func randomize(_ item: NSManagedObject, _ rng: inout SeededRandom) {
            switch rng.int(0...3) {
            case 0: item.setValue(rng.pick(groups), forKey: "group")
            case 1: item.setValue(rng.int(0...6), forKey: "rank")
            case 2: item.setValue(rng.chance(0.7), forKey: "flag")
            default: item.setValue(rng.pick(["n1", "n2", "n3"]), forKey: "note")
            }
        }

        // Half the histories start from rows the view context never registered (written by another
        // context before it merges): a merged save can then make an unregistered row match the predicate.
        let populator = rng.chance(0.5) ? background : view
        try populator.performAndWait {
            for _ in 0..<rng.int(0...8) {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: populator)
                item.setValue(rng.pick(groups), forKey: "group")
                item.setValue(rng.int(0...6), forKey: "rank")
                item.setValue(rng.chance(0.7), forKey: "flag")
            }
            try populator.save()
        }
        view.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.predicate = NSPredicate(format: "flag == YES")
        request.sortDescriptors = sectioned
            ? [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: rng.chance(0.5))]
            : [NSSortDescriptor(key: "rank", ascending: true)]
        // Half the histories sort by more keys (entries hold two keys in place, the others apart): drawn
        // from a generator of their own, so that the histories' other draws stay as they were.
        var shape = SeededRandom(seed: seed &+ 0x9E37)
        if shape.chance(0.5) {
            request.sortDescriptors! += [NSSortDescriptor(key: "note", ascending: shape.chance(0.5)), NSSortDescriptor(key: "flag", ascending: shape.chance(0.5))]
        }
        let keyPath = sectioned ? "group" : nil
        if rng.chance(0.25) {
            // Core Data ignores these after changes (radar 16486972, 30381905); we honour them.
            request.fetchLimit = rng.int(1...5)
            request.fetchOffset = rng.int(0...2)
        }
        let (controller, snapshotController, differenceController, table, snapshots, differences) = try view.performAndWait {
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: view, sectionNameKeyPath: keyPath, cacheName: nil)
            let snapshotController = NSFetchedResultsController(fetchRequest: request, managedObjectContext: view, sectionNameKeyPath: keyPath, cacheName: nil)
            let differenceController = NSFetchedResultsController(fetchRequest: request, managedObjectContext: view, sectionNameKeyPath: nil, cacheName: nil)
            for c in [controller, snapshotController, differenceController] { try c.performFetch() }
            let table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                          numberOfRows: { controller.sections![$0].numberOfObjects },
                                          cell: { content(controller.object(at: $0)) })
            let snapshots = SnapshotDelegate(), differences = DifferenceDelegate()
            differences.ids = differenceController.fetchedObjects!.map(\.objectID)
            return (controller, snapshotController, differenceController, table, snapshots, differences)
        }
        let delegate = Seed001Delegate(tableView: table)
        controller.delegate = delegate
        snapshotController.delegate = snapshots
        differenceController.delegate = differences
        _ = (controller, snapshotController, differenceController)

        for step in 0..<rng.int(1...4) {
            let fromBackground = rng.chance(0.35)
            let target = fromBackground ? background : view
            let ids = try view.performAndWait { try view.fetch(NSFetchRequest<NSManagedObjectID>(entityName: "Item").with { $0.resultType = .managedObjectIDResultType }) }
            var local = rng
            var viewSaved = false
            try target.performAndWait {
                for _ in 0..<local.int(1...3) {
                    let op = local.int(0...5)
                    if ProcessInfo.processInfo.environment["OCD_TRACE"] != nil { print("TRACE step \(step) bg \(fromBackground) op \(op)") }
                    switch op {
                    case 0:
                        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: target)
                        item.setValue(local.pick(groups), forKey: "group")
                        item.setValue(local.int(0...6), forKey: "rank")
                        item.setValue(local.chance(0.7), forKey: "flag")
                    case 1 where !ids.isEmpty:
                        if let item = try? target.existingObject(with: local.pick(ids)) {
                            if ProcessInfo.processInfo.environment["OCD_TRACE"] != nil { print("TRACE delete \(item) inserted \(item.isInserted) deleted \(item.isDeleted)") }
                            target.delete(item)
                        }
                    default:
                        if !ids.isEmpty, let item = try? target.existingObject(with: local.pick(ids)), !item.isDeleted { randomize(item, &local) }
                    }
                }
                if fromBackground {
                    try target.save()
                } else if local.chance(0.3) {
                    viewSaved = true
                    try target.save()
                } else {
                    target.processPendingChanges()
                }
            }
            rng = local
            if ProcessInfo.processInfo.environment["OCD_TRACE"] != nil { print("TRACE limit \(request.fetchLimit) offset \(request.fetchOffset) sorts \(request.sortDescriptors!) table \(table.rows)") }
            view.performAndWait {}  // merges queued by the background save have run
            try view.performAndWait {
                let fresh = try view.fetch(request)
                let expectedRows: [[String]]
                if sectioned {
                    var order: [String] = [], rows: [String: [String]] = [:]
                    for o in fresh {
                        let g = o.value(forKey: "group") as! String
                        if rows[g] == nil { order.append(g) }
                        rows[g, default: []].append(content(o))
                    }
                    expectedRows = order.map { rows[$0]! }
                } else {
                    expectedRows = fresh.isEmpty ? [] : [fresh.map(content)]
                }
                #expect(table.errors.isEmpty, "seed \(seed) step \(step): \(table.errors)")
                #expect(table.rows == expectedRows, "seed \(seed) step \(step): table \(table.rows) fetch \(expectedRows)")
                if let snapshot = snapshots.snapshot, !viewSaved {
                    let applied = HeadlessTableView(numberOfSections: { snapshotController.sections?.count ?? 0 },
                                                    numberOfRows: { snapshotController.sections![$0].numberOfObjects },
                                                    cell: { content(snapshotController.object(at: $0)) })
                    applied.apply(snapshot)
                    #expect(applied.errors.isEmpty && applied.rows == expectedRows, "seed \(seed) step \(step): applied snapshot")
                    #expect(snapshot.itemIdentifiers.map { view.object(with: $0) } == fresh.map { $0 as NSManagedObject },
                            "seed \(seed) step \(step): snapshot")
                }
                #expect(!differences.failed, "seed \(seed) step \(step): a difference did not apply")
                if !viewSaved {
                    #expect(differences.ids.map { view.object(with: $0) } == fresh.map { $0 as NSManagedObject }, "seed \(seed) step \(step): difference")
                }
                snapshots.snapshot = nil
                // Saving gives inserted objects new IDs without a change notification (as in Core Data).
                differences.ids = differenceController.fetchedObjects!.map(\.objectID)
            }
        }
    }
}

extension NSFetchRequest {
    func with(_ configure: (NSFetchRequest) -> Void) -> NSFetchRequest { configure(self); return self }
}

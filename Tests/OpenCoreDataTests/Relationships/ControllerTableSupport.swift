import Foundation
import OpenCoreDataTesting
import Testing
@testable import OpenCoreData

/// A view context and a background context on one in-memory store of ``RelationshipModel``; the view
/// merges the background's saves when `merging` (set it after seeding to keep the seeded rows
/// unregistered in the view).
struct ZooStack {
    let coordinator: NSPersistentStoreCoordinator
    let view: NSManagedObjectContext
    let background: NSManagedObjectContext

    init(model: NSManagedObjectModel = RelationshipModel.make()) throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        view = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        view.persistentStoreCoordinator = coordinator
        background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = coordinator
        // Both sides of a relationship change: a context holding a stale classification still saves.
        view.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        background.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    }

    /// The one object of `entity` whose `key` is `value`, in `context`.
    func one(_ context: NSManagedObjectContext, _ entity: String, _ key: String, _ value: String) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: "%K == %@", key, value)
        return try #require(try context.fetch(request).first)
    }
}

/// Whether the store runs key paths through relationships in SQL (joins for sort descriptors and
/// predicates). The tests of the controller across relationships need it to run `performFetch()`.
enum RelationshipSQL {
    static let isAvailable: Bool = {
        guard let stack = try? ZooStack() else { return false }
        return stack.view.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.predicate = NSPredicate(format: "classification.order == 'x' OR ANY zoos.name == 'y'")
            request.sortDescriptors = [NSSortDescriptor(key: "classification.order", ascending: true)]
            return (try? stack.view.fetch(request)) != nil
        }
    }()
}

/// A delegate that applies the classic calls to a headless table (seed 001's code) and records them as
/// text: `section insert 1`, `update 0/2`, `move 0/1 -> 1/0`, …
final class RecordingTableDelegate: NSFetchedResultsControllerDelegate {
    let table: HeadlessTableView
    var calls: [String] = []
    init(table: HeadlessTableView) { self.table = table }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        calls = []
        table.beginUpdates()
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        calls.append("section \(Self.name(type)) \(sectionIndex)")
        if type == .insert { table.insertSections(IndexSet(integer: sectionIndex), with: .fade) }
        if type == .delete { table.deleteSections(IndexSet(integer: sectionIndex), with: .fade) }
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        func p(_ i: IndexPath?) -> String { i.map { "\($0.section)/\($0.row)" } ?? "-" }
        switch type {
        case .insert:
            calls.append("insert \(p(newIndexPath))")
            table.insertRows(at: [newIndexPath!], with: .fade)
        case .delete:
            calls.append("delete \(p(indexPath))")
            table.deleteRows(at: [indexPath!], with: .fade)
        case .update:
            calls.append("update \(p(indexPath))")
            table.reloadRows(at: [indexPath!], with: .none)
        case .move:
            calls.append("move \(p(indexPath)) -> \(p(newIndexPath))")
            table.deleteRows(at: [indexPath!], with: .fade)
            table.insertRows(at: [newIndexPath!], with: .fade)
        @unknown default:
            break
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        table.endUpdates()
    }

    static func name(_ type: NSFetchedResultsChangeType) -> String {
        switch type {
        case .insert: return "insert"
        case .delete: return "delete"
        case .move: return "move"
        case .update: return "update"
        @unknown default: return "?"
        }
    }
}

/// A controller whose recording delegate drives a headless table; cells by `cell`. Call on the
/// context's queue.
func makeRecordedTable<T>(_ request: NSFetchRequest<T>, in context: NSManagedObjectContext, sectionNameKeyPath: String? = nil,
                          cell: @escaping (NSManagedObject) -> String) throws
    -> (controller: NSFetchedResultsController<T>, table: HeadlessTableView, delegate: RecordingTableDelegate) {
    let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: nil)
    try controller.performFetch()
    let table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                  numberOfRows: { controller.sections![$0].numberOfObjects },
                                  cell: { cell(controller.object(at: $0) as! NSManagedObject) })
    let delegate = RecordingTableDelegate(table: table)
    controller.delegate = delegate
    return (controller, table, delegate)
}

/// An animal as a cell: its name, its classification's order, its zoos' names (sorted).
func animalCell(_ animal: NSManagedObject) -> String {
    let order = (animal.value(forKey: "classification") as? NSManagedObject)?.value(forKey: "order") as? String ?? "-"
    let zoos = animal.set("zoos").compactMap { $0.string("name") }.sorted().joined(separator: ",")
    return "\(animal.string("commonName") ?? "-")|\(order)|\(zoos)"
}

/// What a controller of `request` should show in `context`, computed in memory from every object of the
/// entity as the context sees it (unsaved changes included, related objects' too): the predicate, the
/// sort descriptors, then the store's tiebreak (primary key, then insertion order), offset and limit;
/// cells grouped by the section key path's value ("" for nil). The reference of the random histories:
/// a refetch that does not depend on SQL's joins.
func memoryReference<T>(_ request: NSFetchRequest<T>, in context: NSManagedObjectContext, sectionNameKeyPath: String?,
                        cell: (NSManagedObject) -> String) throws -> [[String]] {
    let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: request.entityName!))
    var objects = all.filter { request.predicate?.evaluate(with: $0) ?? true }
    let descriptors = request.sortDescriptors ?? []
    objects.sort { a, b in
        for d in descriptors {
            let r = d.compare(a, to: b)
            if r != .orderedSame { return r == .orderedAscending }
        }
        switch (a.objectID.primaryKey, b.objectID.primaryKey) {
        case let (x?, y?): return x < y
        case (_?, nil): return true
        case (nil, _?): return false
        case (nil, nil): return a.insertionIndex < b.insertionIndex
        }
    }
    if request.fetchOffset > 0 { objects = Array(objects.dropFirst(request.fetchOffset)) }
    if request.fetchLimit > 0 { objects = Array(objects.prefix(request.fetchLimit)) }
    guard let sectionNameKeyPath else { return objects.isEmpty ? [] : [objects.map(cell)] }
    var names: [String] = [], rows: [String: [String]] = [:]
    for o in objects {
        let name = o.value(forKeyPath: sectionNameKeyPath).map { "\($0)" } ?? ""
        if rows[name] == nil { names.append(name) }
        rows[name, default: []].append(cell(o))
    }
    return names.map { rows[$0]! }
}

/// Seeds Primates (Capuchin, Gorilla), Carnivora (Lion, Tiger), Rodentia (Mouse), an animal without
/// classification (Stray), and zoos Bronx (Capuchin, Lion) and Berlin (Gorilla); saves.
func seedZoo(_ context: NSManagedObjectContext) throws {
    try context.performAndWait {
        let primates = context.make("Classification", ["order": "Primates", "family": "Hominidae"])
        let carnivora = context.make("Classification", ["order": "Carnivora", "family": "Felidae"])
        let rodentia = context.make("Classification", ["order": "Rodentia", "family": "Muridae"])
        let capuchin = context.make("Animal", ["commonName": "Capuchin", "habitat": "forest", "classification": primates])
        let gorilla = context.make("Animal", ["commonName": "Gorilla", "habitat": "forest", "classification": primates])
        let lion = context.make("Animal", ["commonName": "Lion", "habitat": "savanna", "classification": carnivora])
        context.make("Animal", ["commonName": "Tiger", "habitat": "forest", "classification": carnivora])
        context.make("Animal", ["commonName": "Mouse", "habitat": "field", "classification": rodentia])
        context.make("Animal", ["commonName": "Stray", "habitat": "city"])
        context.make("Zoo", ["name": "Bronx"]).mutableSetValue(forKey: "animals").addObjects(from: [capuchin, lion])
        context.make("Zoo", ["name": "Berlin"]).mutableSetValue(forKey: "animals").add(gorilla)
        try context.save()
    }
}

/// Seed 003's table request: animals by `classification.order`, then `commonName`.
func zooTableRequest() -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
    request.sortDescriptors = [NSSortDescriptor(key: "classification.order", ascending: true), NSSortDescriptor(key: "commonName", ascending: true)]
    return request
}

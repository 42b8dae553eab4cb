import ArgumentParser
@_spi(StoreDiagnostics) import OpenCoreData
import DemoModels
import TableUpdates

// The seed 000 article ("NSFetchRequest and NSFetchedResultsController"), live on a SQLite store.
//
//     swift run products [--store PATH] [--count N] [--seed S] [--sql] [--fresh] [--model-version 1|2]
//
// --store  the SQLite file (default ./products.sqlite; reused if it exists; a store of version 1 of the
//          model is migrated to version 2, the current one, when it opens)
// --count  how many products to create in a new store (default 30)
// --seed   the random seed for prices and names (default 1)
// --sql    log every SQL statement (same as -com.apple.CoreData.SQLDebug 1)
// --fresh  delete the store first
// --modern  the same walkthrough with #Predicate and key-path / SortDescriptor sorts (identical output)
// --live   a full-screen table of the store instead of the walkthrough, updated only by the fetched
//          results controller's delegate calls (docs/LiveTables.md)
// --model-version  open the store with this version of the model (default 2, the current one; 1 makes
//          a store of the first version, which a later run without the option migrates)
// -com.apple.CoreData.ConcurrencyDebug 1  check every context call is on its queue (docs/Concurrency.md)

import Logging

/// The command line (parsed only: the walkthrough below is top-level code, so `run()` is not used).
struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "products", abstract: "The seed 000 article's NSFetchRequest walkthrough on a SQLite store.")

    @Option(help: ArgumentHelp("The SQLite file (reused if it exists).", valueName: "path"))
    var store = "products.sqlite"
    @Option(help: ArgumentHelp("How many products to create in a new store.", valueName: "n"))
    var count = 30
    @Option(help: ArgumentHelp("The random seed for prices and names.", valueName: "s"))
    var seed: UInt64 = 1
    @Flag(help: "Log every SQL statement (same as -com.apple.CoreData.SQLDebug 1).")
    var sql = false
    @Flag(help: "Delete the store first.")
    var fresh = false
    @Option(help: ArgumentHelp("The model version to open the store with: 2, the current one, or 1 (a store a later run migrates).", valueName: "n"))
    var modelVersion = 2
    @Flag(help: "Write the requests in today's Swift: #Predicate, key-path and SortDescriptor sorts (the output is the same).")
    var modern = false
    @Flag(help: "A full-screen table of the store that follows every change, row by row (docs/LiveTables.md).")
    var live = false
    @Option(help: .hidden)
    var writerInterval = 0.2
    // Core Data's launch arguments, read by OpenCoreData itself from the command line (docs/Store.md).
    @Option(name: .customLong("com.apple.CoreData.SQLDebug", withSingleDash: true), help: ArgumentHelp("Core Data's SQL debug level (1 logs every statement).", valueName: "level"))
    var sqlDebug: Int?
    @Option(name: .customLong("com.apple.CoreData.ConcurrencyDebug", withSingleDash: true),
            help: ArgumentHelp("1 checks that every context call is on its queue (docs/Concurrency.md).", valueName: "level"))
    var concurrencyDebug: Int?
}

let options = Options.parseOrExit()
if options.live { runLiveTable(options) }

// SQL logging goes to standard output too, so that it interleaves in order with the walkthrough.
LoggingSystem.bootstrap(StreamLogHandler.standardOutput)

let storePath = options.store
let count = options.count
let seed = options.seed
let fresh = options.fresh
if options.sql { SQLDebug.isEnabled = true }

let url = URL(fileURLWithPath: storePath)
if fresh {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}
guard (1...2).contains(options.modelVersion) else {
    print("Error: --model-version is 1 or 2, not \(options.modelVersion)")
    exit(64)
}
let model = options.modelVersion == 1 ? SeedModel.version("Products") : SeedModel.makeCurrent()
// A store of another model version is migrated by the container (its description turns on automatic,
// inferred migration, as Core Data's does): say so before it happens.
if let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url),
   !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
    let from = SeedModel.makeCurrent().versions.first { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }
    print("Migrating \(url.path) from model version \(from?.versionName ?? "(unknown)") to \(model.versionName ?? "?")")
}
let container = NSPersistentContainer(name: "Products", managedObjectModel: model)
container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
container.loadPersistentStores { description, error in
    if let error {
        print("Failed to load the store at \(description.url?.path ?? "?"): \(error)")
        print("(A store made with an earlier version of the model is migrated when it opens; one made with a model that cannot be migrated from cannot be opened: run with --fresh to start over.)")
        exit(1)
    }
}
let context = container.viewContext
let store = container.persistentStoreCoordinator.persistentStores[0]

func section(_ title: String) {
    print("\n=== \(title)")
}

func show(_ objects: [Products]) {
    for p in objects { print("NAME: \(p.name ?? "nil"), PRICE: \(p.price)\(p is FavoriteProducts ? " (FavoriteProducts)" : "")") }
}

func fetch(_ configure: (NSFetchRequest<Products>) -> Void) -> [Products] {
    let request = NSFetchRequest<Products>(entityName: "Products")
    configure(request)
    do {
        return try context.fetch(request)
    } catch {
        print("fetch failed: \(error)")
        exit(1)
    }
}

// Fill a new store: `count` products with seeded random prices below 1000, and one favorite priced 999.
let existing = (try? context.count(for: NSFetchRequest<Products>(entityName: "Products"))) ?? 0
if existing == 0 {
    SeedModel.insertProducts(context, count: count, seed: seed)
    let favorite = FavoriteProducts(context: context)
    favorite.name = "Колбаса «Молочная»"
    favorite.price = 999
    do { try context.save() } catch { print("save failed: \(error)"); exit(1) }
    print("Created \(count) products and one favorite in \(url.path)")
} else {
    print("Reusing \(existing) products in \(url.path)")
}

section("All objects (FavoriteProducts included: includesSubentities is true by default)")
show(fetch { _ in })

/// The requests, as the article writes them (format strings, string keys) or, with --modern, in today's
/// Swift (`#Predicate`, key paths, `SortDescriptor`): the same requests, so the same output.
let modern = options.modern
let byNameThenPrice = modern
    ? [NSSortDescriptor(keyPath: \Products.name, ascending: true), NSSortDescriptor(SortDescriptor(\Products.price))]
    : [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
let sausage = "Колбаса «Молочная»"
let named = modern ? NSPredicate(#Predicate<Products> { $0.name == sausage })! : NSPredicate(format: "name == %@", sausage)
let priced999 = modern ? NSPredicate(#Predicate<Products> { $0.price == 999 })! : NSPredicate(format: "price == 999")

section("sortDescriptors: name, then price")
show(fetch { $0.sortDescriptors = byNameThenPrice })

section("predicate: name == %@ («Молочная»)")
show(fetch { $0.predicate = named })

section("predicate: name CONTAINS[cd] %@ AND price < %d (\"колбаса\", 500)")
show(fetch {
    $0.predicate = NSPredicate(format: "name CONTAINS[cd] %@ AND price < %d", "колбаса", 500)
    // CONTAINS[cd] has no #Predicate form on Linux (Foundation's predicates lack its localized string
    // comparisons there): the format string stays in both ways.
    $0.sortDescriptors = modern ? [NSSortDescriptor(keyPath: \Products.price, ascending: true)] : [NSSortDescriptor(key: "price", ascending: true)]
})

let byPrice = modern ? [NSSortDescriptor(SortDescriptor(\Products.price))] : [NSSortDescriptor(key: "price", ascending: true)]
section("fetchLimit 12: the 12 cheapest")
show(fetch { $0.sortDescriptors = byPrice; $0.fetchLimit = 12 })

section("fetchOffset 2: the same, skipping the first two")
show(fetch { $0.sortDescriptors = byPrice; $0.fetchLimit = 12; $0.fetchOffset = 2 })

section("fetchBatchSize 20")
// A second coordinator on the same file, so that its row cache is empty and the batches show: in the
// view context's coordinator the rows fetched above would serve every fault without a query.
let batchContainer = NSPersistentContainer(name: "Products", managedObjectModel: options.modelVersion == 1 ? SeedModel.version("Products") : SeedModel.makeCurrent())
batchContainer.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
batchContainer.loadPersistentStores { _, error in if let error { print("Failed to load the store again: \(error)"); exit(1) } }
let batchContext = batchContainer.newBackgroundContext()
let batchRequest = NSFetchRequest<Products>(entityName: "Products")
batchRequest.sortDescriptors = byPrice
batchRequest.fetchBatchSize = 20
batchContext.performAndWait {  // a background context's objects are used on its queue (as Core Data requires)
    let batchStore = batchContainer.persistentStoreCoordinator.persistentStores[0]
    let before = batchStore.queryCount
    let batched = (try? batchContext.fetch(batchRequest)) ?? []
    print("fetched \(batched.count) objects with \(batchStore.queryCount - before) query; faults: \(batched.filter(\.isFault).count)")
    let beforeTouch = batchStore.queryCount
    _ = batched.first?.name
    print("touched the first object: \(batchStore.queryCount - beforeTouch) more query; faults left: \(batched.filter(\.isFault).count)")
    for p in batched { _ = p.price }
    print("touched all \(batched.count): \(batchStore.queryCount - beforeTouch) batches loaded in all (\(batchStore.queryCount - beforeTouch) queries)")
}

section("resultType .dictionaryResultType, propertiesToFetch [\"name\"], distinct")
let names = NSFetchRequest<NSDictionary>(entityName: "Products")
names.resultType = .dictionaryResultType
names.propertiesToFetch = ["name"]
names.returnsDistinctResults = true
names.sortDescriptors = modern ? [NSSortDescriptor(keyPath: \Products.name, ascending: true)] : [NSSortDescriptor(key: "name", ascending: true)]
for d in (try? context.fetch(names)) ?? [] {
    print("{" + d.map { "\($0.key) = \($0.value)" }.joined(separator: "; ") + "}")
}

section("count(for:)")
print("Products: \((try? context.count(for: NSFetchRequest<Products>(entityName: "Products"))) ?? -1)")

if options.modelVersion == 2 {
    section("Model version 2: category (added by the migration, nil in older rows) and a fetch index on name, price")
    let uncategorized = fetch { $0.predicate = NSPredicate(format: "category == nil") }
    for p in uncategorized { p.setValue((p.name ?? "").hasPrefix("Колбаса") ? "Колбасы" : "Молочное", forKey: "category") }
    do { try context.save() } catch { print("save failed: \(error)"); exit(1) }
    print("gave \(uncategorized.count) products without one a category")
    for category in ["Колбасы", "Молочное"] {
        let count = (try? context.count(for: { let r = NSFetchRequest<Products>(entityName: "Products"); r.predicate = NSPredicate(format: "category == %@", category); return r }())) ?? -1
        print("category \(category): \(count) products")
    }
}

section("includesSubentities: the favorite priced 999")
show(fetch { $0.predicate = priced999 })
print("-- includesSubentities = false:")
let without = fetch { $0.predicate = priced999; $0.includesSubentities = false }
show(without)
if without.isEmpty { print("(none: the FavoriteProducts object is gone)") }

section("A background context saves; the view context merges it (automaticallyMergesChangesFromParent)")
context.automaticallyMergesChangesFromParent = true
final class Changes: @unchecked Sendable {
    var inserted = 0, updated = 0, deleted = 0
}
let seen = Changes()
let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil) { note in
    seen.inserted += (note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count ?? 0
    seen.updated += (note.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>)?.count ?? 0
    seen.deleted += (note.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject>)?.count ?? 0
}
let cheapestID = fetch { $0.sortDescriptors = byPrice; $0.fetchLimit = 1 }.first?.objectID
let background = container.newBackgroundContext()
background.performAndWait {
    let product = Products(context: background)
    product.name = "Творог"
    product.price = 5
    if let cheapestID, let cheapest = try? background.existingObject(with: cheapestID) as? Products {
        cheapest.price += 1
    }
    do { try background.save() } catch { print("background save failed: \(error)") }
    print("background context saved: 1 insert, 1 update")
}
// The merge was queued on the main queue. A command-line program runs the main queue by running the
// main run loop (or dispatchMain(), or an async main); here, until the merge has arrived.
let deadline = Date().addingTimeInterval(5)
while seen.inserted + seen.updated == 0, Date() < deadline {
    _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
}
NotificationCenter.default.removeObserver(observer)
print("view context received ObjectsDidChange: \(seen.inserted) inserted, \(seen.updated) updated, \(seen.deleted) deleted")
print("view context now counts \((try? context.count(for: NSFetchRequest<Products>(entityName: "Products"))) ?? -1) products")

section("NSFetchedResultsController grouped by name")

let grouped = NSFetchRequest<Products>(entityName: "Products")
grouped.sortDescriptors = byNameThenPrice
let controller = NSFetchedResultsController(fetchRequest: grouped, managedObjectContext: context, sectionNameKeyPath: "name", cacheName: nil)
do { try controller.performFetch() } catch { print("performFetch failed: \(error)"); exit(1) }
for (i, s) in (controller.sections ?? []).enumerated() {
    print("section \(i): \(s.name) (\(s.numberOfObjects) objects, index title \(s.indexTitle ?? "-"))")
}
print("sectionIndexTitles: \(controller.sectionIndexTitles)")
let printer = PrintingTableDelegate(describe: { let p = $0 as! Products; return "\(p.name ?? ""), \(p.price)" })
printer.table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                  numberOfRows: { controller.sections![$0].numberOfObjects },
                                  cell: { let p = controller.object(at: $0); return "\(p.name ?? "")|\(p.price)" })
controller.delegate = printer

@MainActor func showTable() {
    for (i, rows) in printer.table.rows.enumerated() { print("  table section \(i): \(rows.joined(separator: ", "))") }
}

/// Runs `change` in a background context, saves, and waits (running the main run loop) for the batch.
@MainActor func inBackground(_ title: String, _ change: @escaping @Sendable (NSManagedObjectContext) throws -> Void) {
    print("\n-- background: \(title)")
    let expected = printer.batches + 1
    let worker = container.newBackgroundContext()
    worker.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    worker.performAndWait {
        do { try change(worker); try worker.save() } catch { print("background change failed: \(error)") }
    }
    let deadline = Date().addingTimeInterval(5)
    while printer.batches < expected, Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
    showTable()
}

let firstID = controller.object(at: IndexPath(row: 0, section: 0)).objectID
let renameID = controller.sections!.indices.first { controller.sections![$0].numberOfObjects > 1 }.map {
    controller.object(at: IndexPath(row: 0, section: $0)).objectID
}
inBackground("insert «Сыр» priced 10") { worker in
    let p = Products(context: worker)
    p.name = "Сыр"
    p.price = 10
}
inBackground("re-price the first product to 998 (a move within its section)") { worker in
    (try worker.existingObject(with: firstID) as? Products)?.price = 998
}
if let renameID {
    inBackground("rename a product to «Ряженка» (a section change: a new section)") { worker in
        (try worker.existingObject(with: renameID) as? Products)?.name = "Ряженка"
    }
}
if let lonely = controller.sections?.firstIndex(where: { $0.numberOfObjects == 1 }) {
    let lonelyID = controller.object(at: IndexPath(row: 0, section: lonely)).objectID
    inBackground("delete the last product of section \(lonely) (a section delete)") { worker in
        worker.delete(try worker.existingObject(with: lonelyID))
    }
}

import OpenCoreData
import OpenCoreDataTesting

// The seed 000 article ("NSFetchRequest and NSFetchedResultsController"), live on a SQLite store.
//
//     swift run products [--store PATH] [--count N] [--seed S] [--sql] [--fresh]
//
// --store  the SQLite file (default ./products.sqlite; reused if it exists)
// --count  how many products to create in a new store (default 30)
// --seed   the random seed for prices and names (default 1)
// --sql    log every SQL statement (same as -com.apple.CoreData.SQLDebug 1)
// --fresh  delete the store first

import Logging

// SQL logging goes to standard output too, so that it interleaves in order with the walkthrough.
LoggingSystem.bootstrap(StreamLogHandler.standardOutput)

var storePath = "products.sqlite"
var count = 30
var seed: UInt64 = 1
var fresh = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--store": storePath = arguments.next() ?? storePath
    case "--count": count = Int(arguments.next() ?? "") ?? count
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    case "--sql": SQLDebug.isEnabled = true
    case "--fresh": fresh = true
    case "-com.apple.CoreData.SQLDebug": _ = arguments.next()
    case "--help", "-h":
        print("usage: products [--store PATH] [--count N] [--seed S] [--sql] [--fresh]")
        exit(0)
    default:
        print("unknown argument \(argument); try --help")
        exit(2)
    }
}

let url = URL(fileURLWithPath: storePath)
if fresh {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}
let container = NSPersistentContainer(name: "Products", managedObjectModel: SeedModel.make())
container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
container.loadPersistentStores { description, error in
    if let error {
        print("Failed to load the store at \(description.url?.path ?? "?"): \(error)")
        print("(A store made with another model cannot be opened; run with --fresh to start over.)")
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

section("sortDescriptors: name, then price")
show(fetch { $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)] })

section("predicate: name == %@ («Молочная»)")
show(fetch { $0.predicate = NSPredicate(format: "name == %@", "Колбаса «Молочная»") })

section("predicate: name CONTAINS[cd] %@ AND price < %d (\"колбаса\", 500)")
show(fetch {
    $0.predicate = NSPredicate(format: "name CONTAINS[cd] %@ AND price < %d", "колбаса", 500)
    $0.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
})

let byPrice = [NSSortDescriptor(key: "price", ascending: true)]
section("fetchLimit 12: the 12 cheapest")
show(fetch { $0.sortDescriptors = byPrice; $0.fetchLimit = 12 })

section("fetchOffset 2: the same, skipping the first two")
show(fetch { $0.sortDescriptors = byPrice; $0.fetchLimit = 12; $0.fetchOffset = 2 })

section("fetchBatchSize 20")
let batchContext = container.newBackgroundContext()
let batchRequest = NSFetchRequest<Products>(entityName: "Products")
batchRequest.sortDescriptors = byPrice
batchRequest.fetchBatchSize = 20
let before = store.queryCount
let batched = (try? batchContext.fetch(batchRequest)) ?? []
print("fetched \(batched.count) objects with \(store.queryCount - before) query; faults: \(batched.filter(\.isFault).count)")
let beforeTouch = store.queryCount
_ = batched.first?.name
print("touched the first object: \(store.queryCount - beforeTouch) more query; faults left: \(batched.filter(\.isFault).count)")
for p in batched { _ = p.price }
print("touched all \(batched.count): \(store.queryCount - beforeTouch) batches loaded in all (\(store.queryCount - beforeTouch) queries)")

section("resultType .dictionaryResultType, propertiesToFetch [\"name\"], distinct")
let names = NSFetchRequest<NSDictionary>(entityName: "Products")
names.resultType = .dictionaryResultType
names.propertiesToFetch = ["name"]
names.returnsDistinctResults = true
names.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
for d in (try? context.fetch(names)) ?? [] {
    print("{" + d.map { "\($0.key) = \($0.value)" }.joined(separator: "; ") + "}")
}

section("count(for:)")
print("Products: \((try? context.count(for: NSFetchRequest<Products>(entityName: "Products"))) ?? -1)")

section("includesSubentities: the favorite priced 999")
show(fetch { $0.predicate = NSPredicate(format: "price == 999") })
print("-- includesSubentities = false:")
let without = fetch { $0.predicate = NSPredicate(format: "price == 999"); $0.includesSubentities = false }
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

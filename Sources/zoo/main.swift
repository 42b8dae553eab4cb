import ArgumentParser
import OpenCoreData
import DemoModels
import TableUpdates

// Seed 003's sample app ("Zootastic"), live on a SQLite store: animals listed by common name and habitat,
// in sections by their classification's order (a key path through a to-one relationship), then the edits
// a user of the app makes, each with the delegate calls the fetched results controller sends.
//
//     swift run zoo [--store PATH] [--sql] [--fresh]
//
// --store  the SQLite file (default: a new file in the temporary directory, removed at the end)
// --sql    log every SQL statement (same as -com.apple.CoreData.SQLDebug 1): the joins show here
// --fresh  delete the store first (the walkthrough needs a store without animals)
// --live   a full-screen table of the animals instead of the walkthrough, updated only by the fetched
//          results controller's delegate calls (docs/LiveTables.md)

import Logging

/// The command line (parsed only: the walkthrough below is top-level code, so `run()` is not used).
struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "zoo", abstract: "Seed 003's app (Zootastic) on a SQLite store: sections across a relationship, and the edits that move rows.")

    @Option(help: ArgumentHelp("The SQLite file (default: a new file in the temporary directory, removed at the end).", valueName: "path"))
    var store: String?
    @Flag(help: "Log every SQL statement (same as -com.apple.CoreData.SQLDebug 1): the joins show here.")
    var sql = false
    @Flag(help: "Delete the store first (the walkthrough needs a store without animals).")
    var fresh = false
    @Flag(help: "A full-screen table of the store that follows every change, row by row (docs/LiveTables.md).")
    var live = false
    @Option(help: .hidden)
    var writerInterval = 0.2
    @Option(help: .hidden)
    var seed: UInt64 = 1
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
let fresh = options.fresh
if options.sql { SQLDebug.isEnabled = true }

let temporary = storePath == nil
let url = storePath.map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("zoo-\(ProcessInfo.processInfo.processIdentifier).sqlite")
func removeStore() {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}
if fresh || temporary { removeStore() }

/// A container on the store file; a new one each call, so each has its own coordinator and row cache.
func openContainer() -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Zootastic", managedObjectModel: ZooModel.make())
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    container.loadPersistentStores { description, error in
        if let error {
            print("Failed to load the store at \(description.url?.path ?? "?"): \(error)")
            print("(A store made with another model cannot be opened; run with --fresh to start over.)")
            exit(1)
        }
    }
    return container
}

func section(_ title: String) {
    print("\n=== \(title)")
}

func names<T: NSManagedObject>(_ objects: Set<T>, _ name: (T) -> String?) -> String {
    let sorted = objects.map { name($0) ?? "nil" }.sorted()
    return sorted.isEmpty ? "(none)" : sorted.joined(separator: ", ")
}

func save(_ context: NSManagedObjectContext) {
    do { try context.save() } catch { print("save failed: \(error)"); exit(1) }
}

let container = openContainer()
let context = container.viewContext

let existing = (try? context.count(for: NSFetchRequest<Animal>(entityName: "Animal"))) ?? 0
if existing > 0 {
    print("The store at \(url.path) already holds \(existing) animals; the walkthrough starts from the app's")
    print("seed data: run with --fresh to start over.")
    exit(1)
}

section("Seeding the app's zoos, classifications and animals")
let seeded = ZooModel.seed(context)
save(context)
print("Saved \(seeded.zoos.count) zoos, \(seeded.classifications.count) classifications and \(seeded.animals.count) animals in \(url.path)")

section("NSFetchedResultsController: sectionNameKeyPath \"classification.order\", sorted by classification.order, commonName")


/// A row of the app's table: the cell's text label and its detail text label.
func row(_ animal: Animal) -> String { "\(animal.commonName ?? "nil") — \(animal.habitat ?? "nil")" }

let controller = NSFetchedResultsController(fetchRequest: ZooModel.tableRequest(), managedObjectContext: context,
                                            sectionNameKeyPath: "classification.order", cacheName: nil)
do { try controller.performFetch() } catch { print("performFetch failed: \(error)"); exit(1) }
let printer = PrintingTableDelegate(describe: { ($0 as! Animal).commonName ?? "nil" }, indexTitle: { $0 })
printer.table = HeadlessTableView(numberOfSections: { controller.sections?.count ?? 0 },
                                  numberOfRows: { controller.sections![$0].numberOfObjects },
                                  cell: { row(controller.object(at: $0)) })
controller.delegate = printer

/// Every way the table went wrong: a delegate batch UIKit would reject, a table that differs from the
/// controller, or a controller that differs from a new fetch of its request.
var tableFaults: [String] = []

/// Prints the table as the app shows it: section headers (the orders) from the controller, rows from
/// the headless table that the delegate calls kept up to date. Checks the table against the controller,
/// and the controller against a new fetch of the same request (it must follow the store exactly, related
/// objects' changes included), and says so if either differs.
@MainActor func showTable() {
    let sections = controller.sections ?? []
    let rows = printer.table.rows
    for (i, info) in sections.enumerated() {
        print("  \(info.name)")
        for cell in i < rows.count ? rows[i] : [] { print("      \(cell)") }
    }
    let held = sections.map { ($0.objects ?? []).compactMap { $0 as? Animal }.map(row) }
    if rows != held {
        tableFaults.append("table \(rows), controller \(held)")
        print("  MISMATCH: the delegate calls left the table at \(rows), the controller holds \(held)")
    }
    if SQLDebug.isEnabled { print("  (the check's own fetch follows, not the controller's: it never refetches to follow changes)") }
    let refetched: [Animal]
    do { refetched = try context.fetch(ZooModel.tableRequest()) } catch { print("fetch failed: \(error)"); exit(1) }
    var fetched: [(name: String, rows: [String])] = []
    for animal in refetched {
        let name = animal.classification?.order ?? ""
        if fetched.last?.name == name { fetched[fetched.count - 1].rows.append(row(animal)) } else { fetched.append((name, [row(animal)])) }
    }
    if fetched.map(\.name) != sections.map(\.name) || fetched.map(\.rows) != held {
        tableFaults.append("controller \(held), refetch \(fetched)")
        print("  MISMATCH: the controller holds \(sections.map(\.name)) \(held); a new fetch gives \(fetched)")
    }
}
showTable()

/// Makes one edit in the view context and saves it (as the app's editor does); the controller reports
/// the change to its delegate while the context processes it. Then prints the table.
@discardableResult
@MainActor func edit(_ title: String, _ change: () -> Void) -> Bool {
    print("\n-- \(title)")
    let expected = printer.batches + 1
    change()
    save(context)
    // The delegate runs on the view context's queue (the main queue), within the save; should a batch
    // ever be delivered later, run the main queue for it briefly.
    let deadline = Date().addingTimeInterval(2)
    while printer.batches < expected, Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
    if printer.batches < expected { print("(no delegate calls)") }
    showTable()
    return printer.batches >= expected
}

let bats = seeded.classifications["Phyllostomidae"]!
let monkeys = seeded.classifications["Atelidae"]!
let okc = seeded.zoos["Oklahoma City Zoo"]!

section("Edits, as a user of the app makes them")
let newcomer = Animal(context: context)
edit("add an animal: a Jamaican Fruit Bat, filed by mistake under Atelidae (a row insert)") {
    newcomer.commonName = "Jamaican Fruit Bat"
    newcomer.habitat = "Primate Exhibit"
    newcomer.classification = monkeys
    newcomer.addToZoos(okc)  // through mutableSetValue(forKey: "zoos")
    print("before the save, the inverses are already set: Atelidae's animals: \(names(monkeys.animals, \.commonName));")
    print("  Oklahoma City Zoo's animals: \(names(okc.animals, \.commonName))")
}
edit("edit its habitat: Flying Mammals Exhibit (a row update)") {
    newcomer.habitat = "Flying Mammals Exhibit"
}
edit("reclassify it under Phyllostomidae (a move from Primates to Chiroptera)") {
    newcomer.classification = bats
    print("before the save: Atelidae's animals: \(names(monkeys.animals, \.commonName));")
    print("  Phyllostomidae's animals: \(names(bats.animals, \.commonName))")
}
let manatee = seeded.animals["West Indian Manatee"]!
let manatees = manatee.classification!
let lowryPark = seeded.zoos["Lowry Park Zoo"]!
edit("delete the West Indian Manatee, the last animal of Sirenia (a section delete)") {
    context.delete(manatee)
}
print("the nullify rule took it out of the inverses: Trichechidae's animals: \(names(manatees.animals, \.commonName));")
print("  Lowry Park Zoo's animals: \(names(lowryPark.animals, \.commonName))")
let followed = edit("rename the bats' order Chiroptera to Yangochiroptera (their suborder; it sorts after Primates, so their rows change sections)") {
    bats.order = "Yangochiroptera"  // an edit of the Classification only: no Animal changed
}
if followed { print("(Core Data's controller ignores a change to a related object; this one updated the rows it affects, in one batch.)") }

/// The graph by name: each animal's order, family and zoos, each zoo's animals, each classification's animals.
@MainActor func describeGraph(_ context: NSManagedObjectContext) -> [String] {
    func fetch<T: NSManagedObject>(_ entity: String, _ key: String) -> [T] {
        let request = NSFetchRequest<T>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        do { return try context.fetch(request) } catch { print("fetch failed: \(error)"); exit(1) }
    }
    var lines: [String] = []
    for animal: Animal in fetch("Animal", "commonName") {
        let c = animal.classification
        lines.append("animal \(animal.commonName ?? "nil"): \(c?.order ?? "nil") / \(c?.family ?? "nil"); zoos: \(names(animal.zoos, \.name))")
    }
    for zoo: Zoo in fetch("Zoo", "name") {
        lines.append("zoo \(zoo.name ?? "nil") (\(zoo.location ?? "nil")): \(names(zoo.animals, \.commonName))")
    }
    for classification: Classification in fetch("Classification", "family") {
        lines.append("classification \(classification.family ?? "nil") (\(classification.order ?? "nil")): \(names(classification.animals, \.commonName))")
    }
    return lines
}

/// Every relationship seen from both sides: each animal is in its classification's and its zoos'
/// `animals`, and each zoo's and classification's animals point back. Returns the disagreements.
@MainActor func checkInverses(_ context: NSManagedObjectContext) -> [String] {
    var problems: [String] = []
    let animals = (try? context.fetch(NSFetchRequest<Animal>(entityName: "Animal"))) ?? []
    for animal in animals {
        let name = animal.commonName ?? "nil"
        if let c = animal.classification, !c.animals.contains(animal) { problems.append("\(c.family ?? "?") lacks \(name)") }
        for zoo in animal.zoos where !zoo.animals.contains(animal) { problems.append("\(zoo.name ?? "?") lacks \(name)") }
    }
    for zoo in (try? context.fetch(NSFetchRequest<Zoo>(entityName: "Zoo"))) ?? [] {
        for animal in zoo.animals where !animal.zoos.contains(zoo) { problems.append("\(animal.commonName ?? "?") lacks zoo \(zoo.name ?? "?")") }
    }
    for c in (try? context.fetch(NSFetchRequest<Classification>(entityName: "Classification"))) ?? [] {
        for animal in c.animals where animal.classification != c {
            problems.append("\(animal.commonName ?? "?") is not classified under \(c.family ?? "?")")
        }
    }
    return problems
}

section("Reopening the store with a new coordinator")
let before = describeGraph(context)
let reopened = openContainer()
let after = describeGraph(reopened.viewContext)
for line in after { print(line) }
let problems = checkInverses(reopened.viewContext)
for problem in problems { print("INVERSE BROKEN: \(problem)") }
if after != before {
    print("MISMATCH: the reopened store differs from the edited graph; before reopening it was:")
    for line in before { print("  \(line)") }
}
tableFaults += printer.table.errors
if problems.isEmpty, after == before, tableFaults.isEmpty {
    print("relationships intact from both sides after reopening (\(after.count) objects checked)")
} else {
    for fault in tableFaults { print("TABLE FAULT: \(fault)") }
    if temporary { removeStore() }
    exit(1)
}
if temporary { removeStore() }

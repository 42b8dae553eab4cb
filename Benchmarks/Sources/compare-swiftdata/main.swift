import Foundation
import OpenCoreData
import OpenSwiftData

// `swift run -c release --package-path Benchmarks compare-swiftdata [--rows N] [--repetitions R]`: the same work
// through OpenSwiftData's @Model and through OpenCoreData's @Managed classes (README, "SwiftData"), each run on a
// new store; the table gives medians and the ratio (goal: within 1.2×).

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    arguments.firstIndex(of: name).flatMap { Int(arguments[$0 + 1]) } ?? fallback
}
let rows = option("--rows", 20_000)
let repetitions = option("--repetitions", 5)
let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-swiftdata-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

func seconds(_ work: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try work()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Stores filled with `rows` products each way, made once for the read figures.
func swiftDataContext(_ name: String, filled: Bool) throws -> ModelContext {
    let context = ModelContext(try ModelContainer(for: Product.self, configurations: ModelConfiguration(url: folder.appendingPathComponent("\(name).store"))))
    if filled {
        for i in 0..<rows { context.insert(Product(name: "Product \(i)", price: Double(i % 1000), quantity: i)) }
        try context.save()
    }
    return context
}

func coreDataContext(_ name: String, filled: Bool) throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: managedProductModel())
    // With persistent history, as every SwiftData store keeps it (ModelContainer turns it on, as Apple's does):
    // the same store work on both sides.
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("\(name).sqlite"),
                                       options: [NSPersistentHistoryTrackingKey: true])
    let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    if filled {
        for i in 0..<rows {
            let product = ManagedProduct(context: context)
            (product.name, product.price, product.quantity) = ("Product \(i)", Double(i % 1000), Int64(i))
        }
        try context.save()
    }
    return context
}

/// Both variants, interleaved (each repetition starts with the other one), after one warm-up run each.
func figure(_ title: String, swiftData: () throws -> Void, coreData: () throws -> Void) throws -> (String, Double, Double) {
    var ours: [Double] = [], theirs: [Double] = []
    for run in 0...repetitions {
        var a = 0.0, b = 0.0
        if run % 2 == 0 {
            a = try seconds(swiftData)
            b = try seconds(coreData)
        } else {
            b = try seconds(coreData)
            a = try seconds(swiftData)
        }
        if run > 0 { ours.append(a); theirs.append(b) }
    }
    FileHandle.standardError.write("\(title): done\n".data(using: .utf8)!)
    return (title, median(ours), median(theirs))
}

var table: [(String, Double, Double)] = []

var run = 0
table.append(try figure("insert + save \(rows)", swiftData: {
    run += 1
    _ = try swiftDataContext("insert-sd-\(run)", filled: true)
}, coreData: {
    _ = try coreDataContext("insert-cd-\(run)", filled: true)
}))

let sdStore = try swiftDataContext("read-sd", filled: true)
let cdStore = try coreDataContext("read-cd", filled: true)
table.append(try figure("fetch price < 500 sorted by name, read name", swiftData: {
    let context = ModelContext(sdStore.container)
    let models = try context.fetch(FetchDescriptor<Product>(predicate: #Predicate { $0.price < 500 }, sortBy: [SortDescriptor(\.name)]))
    var length = 0
    for model in models { length += model.name.utf8.count }
    precondition(length > 0)
}, coreData: {
    let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
    context.persistentStoreCoordinator = cdStore.persistentStoreCoordinator
    let request = NSFetchRequest<ManagedProduct>(entityName: "ManagedProduct")
    request.predicate = NSPredicate(format: "price < 500")
    request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
    var length = 0
    for object in try context.fetch(request) { length += object.name.utf8.count }
    precondition(length > 0)
}))

// Many small fetches, as app code makes them (one row by a captured value, the first match): the predicate's
// translation is most of each fetch.
table.append(try figure("fetch 1 by a captured quantity ×200", swiftData: {
    var found = 0
    for i in 0..<200 {
        var descriptor = FetchDescriptor<Product>(predicate: #Predicate { $0.quantity == i })
        descriptor.fetchLimit = 1
        found += try sdStore.fetch(descriptor).count
    }
    precondition(found == 200)
}, coreData: {
    var found = 0
    for i in 0..<200 {
        let request = NSFetchRequest<ManagedProduct>(entityName: "ManagedProduct")
        request.predicate = NSPredicate(format: "quantity == %d", i)
        request.fetchLimit = 1
        found += try cdStore.fetch(request).count
    }
    precondition(found == 200)
}))

let models = try sdStore.fetch(FetchDescriptor<Product>())
let objects = try cdStore.fetch(NSFetchRequest<ManagedProduct>(entityName: "ManagedProduct"))
table.append(try figure("read 3 properties of \(rows) loaded objects ×10", swiftData: {
    var sum = 0.0
    for _ in 0..<10 { for model in models { sum += model.price + Double(model.quantity + model.name.utf8.count) } }
    precondition(sum > 0)
}, coreData: {
    var sum = 0.0
    for _ in 0..<10 { for object in objects { sum += object.price + Double(Int(object.quantity) + object.name.utf8.count) } }
    precondition(sum > 0)
}))

// The same loaded objects again, each given a new quantity (the setter: an unsaved change per object; the contexts
// keep them, unsaved, from one run to the next).
table.append(try figure("set 1 property of \(rows) loaded objects", swiftData: {
    for model in models { model.quantity += 1 }
}, coreData: {
    for object in objects { object.quantity += 1 }
}))

print("| figure (\(rows) rows, median of \(repetitions)) | OpenSwiftData | OpenCoreData | ratio |")
print("|---|---:|---:|---:|")
for (title, ours, theirs) in table {
    print(String(format: "| %@ | %.1f ms | %.1f ms | %.2f× |", title, ours * 1000, theirs * 1000, ours / theirs))
}

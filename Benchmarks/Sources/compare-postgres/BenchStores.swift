import Foundation
import OpenCoreDataPostgres
import OpenCoreDataTesting

/// The stores the PostgreSQL figures use (seed 000's Products model), and what each figure does with
/// them through the Core Data API.
enum BenchStores {
    static func postgres(_ server: URL, schema: String) throws -> (container: NSPersistentContainer, url: URL) {
        var parts = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        parts.queryItems = [URLQueryItem(name: "schema", value: schema)]
        return (try open(parts.url!), parts.url!)
    }

    static func sqlite(_ file: URL) throws -> (container: NSPersistentContainer, url: URL) { (try open(file), file) }

    private static func open(_ url: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Products", managedObjectModel: SeedModel.makeCurrent())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    /// Inserts `count` products in one context and saves; the seconds the save took with the inserts.
    static func insert(_ count: Int, into container: NSPersistentContainer) throws -> Double {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let start = now()
            _ = SeedModel.insertProducts(context, count: count, seed: 7)
            try context.save()
            return now() - start
        }
    }

    static func request() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Products")
        request.predicate = NSPredicate(format: "price < %d", 500)
        request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
        return request
    }

    /// A fresh context fetches the products and reads each one's name and price.
    static func fetch(_ container: NSPersistentContainer) throws -> Double {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let start = now()
            var total = 0
            for product in try context.fetch(request()) {
                total &+= (product.value(forKey: "name") as? String)?.utf8.count ?? 0
                total &+= (product.value(forKey: "price") as? Int) ?? 0
            }
            precondition(total != 0)
            return now() - start
        }
    }

    static func count(_ container: NSPersistentContainer) throws -> Double {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let start = now()
            let count = try context.count(for: request())
            precondition(count > 0)
            return now() - start
        }
    }

    /// Fetches the first product by key, changes its price, saves (a fresh context each time).
    static func singleChange(_ container: NSPersistentContainer) throws -> Double {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Products")
            request.predicate = NSPredicate(format: "name == %@", SeedModel.productNames[0])
            request.fetchLimit = 1
            let start = now()
            let product = try context.fetch(request)[0]
            product.setValue(((product.value(forKey: "price") as? Int) ?? 0) + 1, forKey: "price")
            try context.save()
            return now() - start
        }
    }
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// The median of `runs` timed runs after one warm-up run.
func medianOf(_ runs: Int, _ sample: () throws -> Double) throws -> Double {
    _ = try sample()
    let times = try (0..<runs).map { _ in try sample() }.sorted()
    return times[times.count / 2]
}

func seconds(_ s: Double) -> String { s >= 1 ? String(format: "%.2f s", s) : String(format: "%.1f ms", s * 1000) }

func progress(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

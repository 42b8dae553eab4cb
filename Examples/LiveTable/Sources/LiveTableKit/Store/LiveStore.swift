import Foundation
import OpenCoreData
import OpenCoreDataTesting

/// The store behind the table: seed 000's Products model (current version: name, price, category) in a
/// SQLite file, and the one request every connection's controller runs.
public final class LiveStore: @unchecked Sendable {
    public let container: NSPersistentContainer
    /// The categories the seed data and the writers use; a page may type any other.
    public static let categories = ["Молочное", "Колбасы", "Сыры", "Напитки", "Хлеб"]

    /// Opens (and with `fresh`, first deletes) the store at `url`; an empty store gets `count` products.
    public init(url: URL, fresh: Bool, count: Int, seed: UInt64 = 1) throws {
        if fresh {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        container = NSPersistentContainer(name: "Products", managedObjectModel: SeedModel.makeCurrent())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            guard try context.count(for: Self.request()) == 0 else { return }
            var rng = SeededRandom(seed: seed)
            for p in SeedModel.insertProducts(context, count: count, seed: seed) {
                p.setValue(rng.pick(Self.categories), forKey: "category")
            }
            try context.save()
        }
    }

    /// Products sorted by category (the sections), then name, then price.
    public static func request() -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "category", ascending: true), NSSortDescriptor(key: "name", ascending: true),
                                   NSSortDescriptor(key: "price", ascending: true)]
        return request
    }

    /// The table as a fresh fetch on a new context shows it.
    public func freshTable() -> [SectionData] {
        let context = container.newBackgroundContext()
        return context.performAndWait {
            let products = (try? context.fetch(Self.request())) ?? []
            var sections: [SectionData] = []
            for p in products {
                let row = Self.row(p)
                if sections.last?.name != row.category { sections.append(SectionData(name: row.category, rows: [])) }
                sections[sections.count - 1].rows.append(row)
            }
            return sections
        }
    }

    /// A product's row (read on its context's queue).
    public static func row(_ object: NSManagedObject) -> RowData {
        RowData(id: object.objectID.uriRepresentation().absoluteString,
                name: object.value(forKey: "name") as? String ?? "",
                price: (object.value(forKey: "price") as? NSNumber)?.intValue ?? 0,
                category: object.value(forKey: "category") as? String ?? "")
    }
}

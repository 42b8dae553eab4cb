import Foundation
import OpenCoreData
import DemoModels

/// The store behind the table: seed 000's Products model (current version: name, price, category) in a
/// SQLite file or a PostgreSQL schema, and the one request every connection's controller runs.
public final class LiveStore: @unchecked Sendable {
    public let container: NSPersistentContainer
    /// Whether other processes may write the store (a `postgres://` URL): it then records persistent
    /// history and posts `NSPersistentStoreRemoteChange` for their commits, which the gate follows.
    public let followsOtherProcesses: Bool
    /// The products of each category the seed data and the writers use (a page may type any other).
    public static let catalog: [(category: String, names: [String])] = [
        ("Молочное", ["Йогурт", "Молоко", "Творог", "Кефир", "Масло"]),
        ("Колбасы", ["Колбаса «Молочная»", "Колбаса «Докторская»"]),
        ("Сыры", ["Сыр", "Брынза"]),
        ("Напитки", ["Квас", "Морс"]),
        ("Хлеб", ["Батон", "Бородинский"]),
    ]
    /// The catalog's categories.
    public static let categories = catalog.map(\.category)

    /// A product of the catalog with its category.
    public static func product(_ rng: inout SeededRandom) -> (name: String, category: String) {
        let (category, names) = rng.pick(catalog)
        return (rng.pick(names), category)
    }

    /// Opens (and with `fresh`, first destroys) the store at `url`, a file or a `postgres://` URL; an
    /// empty store gets `count` products. A second process opening a store the first has seeded finds it
    /// not empty and seeds nothing.
    public init(url: URL, fresh: Bool, count: Int, seed: UInt64 = 1) throws {
        let model = SeedModel.makeCurrent()
        if fresh { try NSPersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .sqlite) }
        container = NSPersistentContainer(name: "Products", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        followsOtherProcesses = !url.isFileURL
        if followsOtherProcesses {
            description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
            description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        }
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        try Self.seed(container.newBackgroundContext(), count: count, seed: seed)
    }

    /// Inserts `count` products when the store has none.
    private static func seed(_ context: NSManagedObjectContext, count: Int, seed: UInt64) throws {
        try context.performAndWait {
            guard try context.count(for: Self.request()) == 0 else { return }
            var rng = SeededRandom(seed: seed)
            for p in SeedModel.insertProducts(context, count: count, seed: seed) {
                let (name, category) = product(&rng)
                p.setValue(name, forKey: "name")
                p.setValue(category, forKey: "category")
            }
            try context.save()
        }
    }

    /// Products sorted by category (the sections), then as `view` says (name, then price, by default), with
    /// `view`'s search as the predicate (`name CONTAINS[cd] %@`).
    public static func request(_ view: ClientMessage.View = .init()) -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        let other = view.sort == "price" ? "name" : "price"
        request.sortDescriptors = [NSSortDescriptor(key: "category", ascending: true), NSSortDescriptor(key: view.sort, ascending: view.ascending),
                                   NSSortDescriptor(key: other, ascending: true)]
        let search = view.search.trimmingCharacters(in: .whitespaces)
        if !search.isEmpty { request.predicate = NSPredicate(format: "name CONTAINS[cd] %@", search) }
        return request
    }

    /// The table as a fresh fetch on a new context shows it (in `view`'s order and filter).
    public func freshTable(_ view: ClientMessage.View = .init()) -> [SectionData] {
        let context = container.newBackgroundContext()
        return context.performAndWait {
            let products = (try? context.fetch(Self.request(view))) ?? []
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

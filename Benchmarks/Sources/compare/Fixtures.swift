import OpenCoreData
import OpenCoreDataTesting

// `Products` (a `@Managed` class), its model (`SeedModel.make()`, read from OpenCoreDataTesting's
// Products.xcdatamodeld, a new instance per container), `SeedModel.productNames` and `SeededRandom` come
// from OpenCoreDataTesting, shared with the demo and the tests. The model's subentity `FavoriteProducts`
// changes no SQL here: a fetch of `Products` with its subentities reads the whole table, without a
// `Z_ENT` condition (entities are numbered by name, so the library writes `Products` rows with `Z_ENT` 2;
// the baselines' 1 costs the same).

/// Products to write, as parallel arrays, made from a seed.
struct ProductData: Sendable {
    /// Names such as `Кефир 417`.
    let names: [String]
    /// Prices, uniform in 0 ..< 1000.
    let prices: [Int32]

    /// `count` products from `seed`.
    init(count: Int, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var names: [String] = []
        var prices: [Int32] = []
        names.reserveCapacity(count)
        prices.reserveCapacity(count)
        for _ in 0..<count {
            names.append("\(SeedModel.productNames[Int(random.next() % UInt64(SeedModel.productNames.count))]) \(random.next() % 1000)")
            prices.append(Int32(random.next() % 1000))
        }
        self.names = names
        self.prices = prices
    }

    /// How many products.
    var count: Int { names.count }
}

/// The fetch figures' condition: `price < 500`, about half of the rows.
let priceLimit: Int32 = 500

/// What the library and the baselines read: table, columns and the SQL the library runs, so that the raw
/// and GRDB variants do the same work (same `WHERE`, same `ORDER BY`).
enum StoreSQL {
    /// The library's table for `Products` (`Z_PK`, `Z_ENT`, `Z_OPT`, `ZNAME`, `ZPRICE`).
    static let createTable = "CREATE TABLE ZPRODUCTS (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZPRICE INTEGER)"
    /// The library's index on the entity column.
    static let createIndex = "CREATE INDEX IF NOT EXISTS ZPRODUCTS_Z_ENT_INDEX ON ZPRODUCTS (Z_ENT)"
    /// Figure 1's rows (the library selects its own columns, `t0.Z_PK, t0.Z_ENT, t0.Z_OPT`, as well).
    static let fetchObjects = "SELECT t0.ZNAME, t0.ZPRICE FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ? ORDER BY t0.ZNAME, t0.ZPRICE, t0.Z_PK"
    /// Figure 1's floor: exactly the library's SQL for figure 1's request (`SQLTextTests.seed000Steps`
    /// checks the columns and the order), which also reads `Z_PK`, `Z_ENT`, `Z_OPT` (identity, entity,
    /// version: what uniquing, subentities and optimistic locking need) and so sorts wider records.
    static let fetchObjectsAsLibrary = "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME, t0.ZPRICE FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ? ORDER BY t0.ZNAME, t0.ZPRICE, t0.Z_PK"
    /// Figure 2's rows: exactly the library's dictionary fetch.
    static let fetchDictionaries = "SELECT t0.ZNAME, t0.ZPRICE FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ? ORDER BY t0.ZNAME, t0.ZPRICE"
    /// Figure 3: exactly the library's count.
    static let count = "SELECT COUNT(*) FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ?"
    /// Figure 4's full fetch in figure 1's order (the library selects its own columns as well).
    static let fetchAllSorted = "SELECT t0.ZNAME, t0.ZPRICE FROM ZPRODUCTS t0 ORDER BY t0.ZNAME, t0.ZPRICE, t0.Z_PK"
    /// The first query of the library's batched fetch in figure 1's order: the keys, sorted (exactly the
    /// library's SQL, `SQLTextTests.idOnlyFetchesBreakTiesLikeFullFetches`).
    static let fetchAllKeysSorted = "SELECT t0.Z_PK, t0.Z_ENT FROM ZPRODUCTS t0 ORDER BY t0.ZNAME, t0.ZPRICE, t0.Z_PK"
    /// Figure 4's full fetch in store order (the library adds `ORDER BY t0.Z_PK` when nothing is sorted).
    static let fetchAll = "SELECT t0.ZNAME, t0.ZPRICE FROM ZPRODUCTS t0 ORDER BY t0.Z_PK"
    /// The first query of the library's batched fetch in store order.
    static let fetchAllKeys = "SELECT t0.Z_PK, t0.Z_ENT FROM ZPRODUCTS t0 ORDER BY t0.Z_PK"
    /// Figure 6's insert: the library's columns.
    static let insert = "INSERT INTO ZPRODUCTS (Z_PK, Z_ENT, Z_OPT, ZNAME, ZPRICE) VALUES (?, ?, 1, ?, ?)"
}

/// Opens (or creates) an OpenCoreData SQLite store of `model` at `url`.
func openContainer(name: String, model: NSManagedObjectModel, url: URL) throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: name, managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    var failure: (any Error)?
    container.loadPersistentStores { _, error in failure = error }
    if let failure { throw failure }
    return container
}

extension NSPersistentContainer {
    /// A new main-queue context on the container's coordinator, with no registered objects. The benchmark
    /// runs on the main thread, so calling it directly is Core Data's rule-abiding use (no `performAndWait` hop).
    func newMainQueueContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }
}

/// An OpenCoreData SQLite store on a file.
final class LibraryStore {
    /// The store file.
    let url: URL
    /// The container that opened it.
    let container: NSPersistentContainer

    /// Opens (or creates) the store at `url`, of the seed's model (version 1), or of its version 2 when
    /// `indexed` (its fetch index `byNameAndPrice` on name, price, and an optional `category`).
    init(url: URL, indexed: Bool = false) throws {
        self.url = url
        container = try openContainer(name: "Bench", model: indexed ? SeedModel.makeCurrent() : SeedModel.make(), url: url)
    }

    /// A new main-queue context on the store, with no registered objects.
    func newContext() -> NSManagedObjectContext { container.newMainQueueContext() }

    /// Writes `data` to a new store at `url` through the library, then closes it, so that measurements
    /// start from a store whose row cache holds nothing from the writing.
    static func create(at url: URL, with data: ProductData, indexed: Bool = false) throws {
        try LibraryStore(url: url, indexed: indexed).fill(with: data)
    }

    /// Inserts `data` through the library, saving every `chunk` objects and resetting the context.
    func fill(with data: ProductData, chunk: Int = 100_000) throws {
        let context = newContext()
        for start in stride(from: 0, to: data.count, by: chunk) {
            try insert(data, range: start..<min(start + chunk, data.count), into: context)
            try context.save()
            context.reset()
        }
    }

    /// Inserts products `range` of `data` into `context` (not saved).
    func insert(_ data: ProductData, range: Range<Int>, into context: NSManagedObjectContext) throws {
        for i in range {
            let product = Products(context: context)
            product.name = data.names[i]
            product.price = data.prices[i]
        }
    }

    /// `Products` with `price < priceLimit`, sorted by name then price.
    static func filteredRequest<T>(_ type: T.Type = Products.self) -> NSFetchRequest<T> {
        let request = NSFetchRequest<T>(entityName: "Products")
        request.predicate = NSPredicate(format: "price < %d", priceLimit)
        request.sortDescriptors = sortedByNameAndPrice
        return request
    }

    /// Every `Products`, sorted by name then price or in store order.
    static func allRequest(batchSize: Int, sorted: Bool) -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        if sorted { request.sortDescriptors = sortedByNameAndPrice }
        request.fetchBatchSize = batchSize
        return request
    }

    private static var sortedByNameAndPrice: [NSSortDescriptor] {
        [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
    }
}

/// Deletes a SQLite file with its `-wal` and `-shm` companions.
func removeDatabase(at url: URL) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}

import OpenCoreData
import DemoModels
import TerminalTable

/// The Products store as a live table: sections by product name (the controller's
/// `sectionNameKeyPath: "name"`, sorted by name, then price), index titles their first letters.
struct ProductsTable: LiveTableModel {
    /// The article's names and a few more, so that renames and inserts make new sections.
    static let names = SeedModel.productNames + ["Ряженка", "Сметана", "Простокваша", "Брынза"]

    var title: String { "Products by name" }
    var secondValueChange: String { "re-price" }
    var sectionNameKeyPath: String { "name" }

    func fetchRequest() -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
        // A screen's worth: the controller shows its first screen from the store's counts and first batch,
        // and reads the rest meanwhile (docs/FetchedResults.md, "The first screen").
        request.fetchBatchSize = 40
        return request
    }

    func cell(_ product: Products) -> String { Self.cell(name: product.name, price: product.price) }

    /// A row: the name, then the price right-aligned.
    static func cell(name: String?, price: Int32) -> String {
        TableFrame.fit(name ?? "nil", 24) + String(repeating: " ", count: max(0, 4 - String(price).count)) + "\(price) ₽"
    }

    func insert(into context: NSManagedObjectContext, using random: inout SeededRandom) throws -> Products {
        let product = Products(context: context)
        product.name = random.pick(Self.names)
        product.price = Int32(random.int(1...999))
        return product
    }

    /// The next name of ``names``.
    func rename(_ product: Products, using random: inout SeededRandom) {
        let index = Self.names.firstIndex(of: product.name ?? "") ?? -1
        product.name = Self.names[(index + 1) % Self.names.count]
    }

    func reprice(_ product: Products, using random: inout SeededRandom) {
        product.price = Int32(random.int(1...999))
    }
}

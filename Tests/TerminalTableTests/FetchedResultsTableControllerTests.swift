import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing
import TerminalTable

/// The delegate-to-table mapping on a real store: each save reaches the terminal table as one batch of
/// UIKit calls, the table's rows stay what the controller holds, and the status line counts the batch.
@MainActor @Suite struct FetchedResultsTableControllerTests {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("frc-table-\(UUID().uuidString).sqlite")

    func makeTable() throws -> (NSPersistentContainer, FetchedResultsTableController<Products>) {
        let container = NSPersistentContainer(name: "Products", managedObjectModel: SeedModel.makeCurrent())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        for (name, price) in [("Кефир", 10), ("Молоко", 20), ("Молоко", 30)] {
            let product = Products(context: container.viewContext)
            product.name = name
            product.price = Int32(price)
        }
        try container.viewContext.save()
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: container.viewContext, sectionNameKeyPath: "name", cacheName: nil)
        try controller.performFetch()
        let table = FetchedResultsTableController(controller: controller) { "\($0.name ?? "") \($0.price)" }
        table.attach(width: 60, height: 20) { _ in }
        return (container, table)
    }

    func held(_ table: FetchedResultsTableController<Products>) -> [[String]] {
        (table.controller.sections ?? []).map { ($0.objects ?? []).map { let p = $0 as! Products; return "\(p.name ?? "") \(p.price)" } }
    }

    func removeStore() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    @Test func eachSaveIsOneBatchOnTheTable() throws {
        defer { removeStore() }
        let (container, table) = try makeTable()
        let context = container.viewContext
        #expect(table.tableView.rows == [["Кефир 10"], ["Молоко 20", "Молоко 30"]])
        #expect(table.tableView.frame.lines[1].text.hasPrefix("── Кефир"))

        let products = try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
        let kefir = products.first { $0.name == "Кефир" }!, milk = products.first { $0.price == 20 }!
        milk.price = 40  // a move within its section
        try context.save()
        #expect(table.tableView.rows == held(table))
        #expect(table.batchStatus == "batch 1: +0 −0 ~0 ↕1 §+0 −0")

        kefir.name = "Сыр"  // out of the first section (deleted) into a new last one
        let yogurt = Products(context: context)
        yogurt.name = "Йогурт"
        yogurt.price = 5
        try context.save()
        #expect(table.tableView.rows == held(table))
        #expect(table.tableView.rows == [["Йогурт 5"], ["Молоко 30", "Молоко 40"], ["Сыр 10"]])
        // UIKit forbids moves out of a deleted section or into an inserted one: the controller sends a
        // delete and an insert for the renamed row.
        #expect(table.batchStatus == "batch 2: +2 −1 ~0 ↕0 §+2 −1")
        #expect(table.tableView.status.hasSuffix("…controllerDidChangeContent"))

        context.delete(yogurt)
        try context.save()
        #expect(table.tableView.rows == [["Молоко 30", "Молоко 40"], ["Сыр 10"]])
        #expect(table.batches == 3 && table.tableView.errors.isEmpty)
        #expect(table.tableView.frame.lines[0].text.hasPrefix("row 0/3 top 0"))
    }

    /// Seed 002's background case: a private-queue context saves; the view context merges each save
    /// (automaticallyMergesChangesFromParent) and the table follows it.
    @Test func theBackgroundWriterReachesTheTable() async throws {
        defer { removeStore() }
        let (container, table) = try makeTable()
        container.viewContext.automaticallyMergesChangesFromParent = true
        final class Reports: @unchecked Sendable { var lines: [String] = [] }
        let reports = Reports()
        let writer = BackgroundWriter(container: container, model: TestProducts(), interval: 0.02, seed: 9) { reports.lines.append($0) }
        writer.start()
        #expect(writer.isRunning)
        for _ in 0..<200 where reports.lines.count < 8 { try await Task.sleep(for: .milliseconds(20)) }
        writer.stop()
        #expect(!writer.isRunning)
        try await Task.sleep(for: .milliseconds(200))  // a save under way, and its merge
        #expect(reports.lines.count >= 8)
        #expect(reports.lines.allSatisfy { $0.hasPrefix("save ") }, "\(reports.lines)")
        #expect(!reports.lines.contains { $0.contains("  ") }, "save texts name the rows without their padding: \(reports.lines)")
        #expect(table.batches >= 8)
        #expect(table.tableView.errors.isEmpty)
        #expect(table.tableView.rows == held(table))
        let reader = container.newBackgroundContext()
        let stored = try reader.performAndWait { try reader.count(for: NSFetchRequest<Products>(entityName: "Products")) }
        #expect(table.tableView.totalRows == stored)
    }
}

/// The products table's edits, for the writer.
struct TestProducts: LiveTableModel {
    var title: String { "Products" }
    var sectionNameKeyPath: String { "name" }
    func fetchRequest() -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
        return request
    }
    /// A row as the demo's: the name padded to a column.
    func cell(_ product: Products) -> String { TableFrame.fit(product.name ?? "", 24) + " \(product.price)" }
    func insert(into context: NSManagedObjectContext, using random: inout SeededRandom) throws -> Products {
        let product = Products(context: context)
        product.name = random.pick(SeedModel.productNames)
        product.price = Int32(random.int(1...999))
        return product
    }
    func rename(_ product: Products, using random: inout SeededRandom) { product.name = random.pick(SeedModel.productNames) }
    func reprice(_ product: Products, using random: inout SeededRandom) { product.price = Int32(random.int(1...999)) }
}

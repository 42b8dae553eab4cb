import Foundation
import Logging
import OpenCoreData
import DemoModels
import TerminalTable

/// `products --live`: the Products store (filled as the walkthrough fills a new one) in a full-screen
/// table that only the fetched results controller's delegate calls update (docs/LiveTables.md).
@MainActor func runLiveTable(_ options: Options) -> Never {
    LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }  // nothing may write over the screen
    let url = URL(fileURLWithPath: options.store)
    if options.fresh {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }
    let container = NSPersistentContainer(name: "Products", managedObjectModel: SeedModel.makeCurrent())
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    var failure: Error?
    container.loadPersistentStores { _, error in failure = error }
    let session: LiveTableSession<ProductsTable>
    do {
        if let failure { throw failure }
        let context = container.viewContext
        if try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == 0 {
            SeedModel.insertProducts(context, count: options.count, seed: options.seed)
            let favorite = FavoriteProducts(context: context)
            favorite.name = "Колбаса «Молочная»"
            favorite.price = 999
            try context.save()
        }
        session = try LiveTableSession(model: ProductsTable(), container: container, seed: options.seed,
                                           writerInterval: options.writerInterval)
        session.start()
    } catch {
        print("Cannot show the live table of \(url.path): \(error)")
        exit(1)
    }
    withExtendedLifetime(session) { dispatchMain() }
}

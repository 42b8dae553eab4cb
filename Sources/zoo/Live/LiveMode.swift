import Foundation
import Logging
import OpenCoreData
import DemoModels
import TerminalTable

/// `zoo --live`: the app's seed data in a full-screen table sectioned by `classification.order`, updated
/// only by the fetched results controller's delegate calls (docs/LiveTables.md). A store given with
/// `--store` is kept (and seeded when it holds no animals); the default temporary one is removed on quit.
@MainActor func runLiveTable(_ options: Options) -> Never {
    LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }  // nothing may write over the screen
    let temporary = options.store == nil
    let url = options.store.map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("zoo-live-\(ProcessInfo.processInfo.processIdentifier).sqlite")
    let remove = { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
    if options.fresh || temporary { remove() }
    let container = NSPersistentContainer(name: "Zootastic", managedObjectModel: ZooModel.make())
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    var failure: Error?
    container.loadPersistentStores { _, error in failure = error }
    let session: LiveTableSession<AnimalsTable>
    do {
        if let failure { throw failure }
        let context = container.viewContext
        if try context.count(for: NSFetchRequest<Animal>(entityName: "Animal")) == 0 {
            ZooModel.seed(context)
            try context.save()
        }
        session = try LiveTableSession(model: AnimalsTable(), container: container, seed: options.seed,
                                           writerInterval: options.writerInterval)
        if temporary { session.onQuit = remove }
        session.start()
    } catch {
        print("Cannot show the live table of \(url.path): \(error)")
        exit(1)
    }
    withExtendedLifetime(session) { dispatchMain() }
}

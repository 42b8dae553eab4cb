import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

@Suite("Fetched results cache file")
struct FetchedResultsCacheTests {
    @Test func performFetchWritesTheCacheAndDeleteCacheRemovesIt() throws {
        let name = "ocd-test-\(UUID().uuidString)"
        let context = try makeItemsContext()
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("g", forKey: "group")
            try context.save()
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: name)
            try controller.performFetch()
        }
        let base = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache")
        let file = base.appendingPathComponent("OpenCoreData/FetchedResultsCache/\(name).json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"sectionNameKeyPath\":\"group\""))
        NSFetchedResultsController<Item>.deleteCache(withName: name)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}

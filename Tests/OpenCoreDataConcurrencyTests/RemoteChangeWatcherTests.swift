import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Remote change notifications in one process (issue 38, item 3): a SQLite store added with
/// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` watches its file from a timer thread while saves run,
/// and announces other coordinators' commits, never its own. (Every store's: `ConformanceRemoteChangeTests`.)
@Suite("Remote change watcher")
struct RemoteChangeWatcherTests {
    @Test("Another coordinator's save is announced with the store's URL, UUID and token; the coordinator's own is not")
    func inProcess() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let watching = try NSPersistentStoreCoordinator.seedStore(at: store.url, posting: true)
        let writing = try NSPersistentStoreCoordinator.seedStore(at: store.url, posting: false)
        let inbox = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: watching, queue: nil) { inbox.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let own = NSManagedObjectContext(.privateQueue)
        own.persistentStoreCoordinator = watching
        try own.performAndWait { _ = SeedModel.insertProducts(own, count: 2); try own.save() }
        #expect(!inbox.wait(0.3), "its own save is not a remote change")
        let other = NSManagedObjectContext(.privateQueue)
        other.persistentStoreCoordinator = writing
        try other.performAndWait { _ = SeedModel.insertProducts(other, count: 1); try other.save() }
        #expect(inbox.wait(5), "the other coordinator's save is announced")
        let info = try #require(inbox.all.first?.info)
        #expect((info[NSPersistentStoreURLKey] as? URL)?.path == store.url.path)
        #expect(info[NSStoreUUIDKey] as? String == watching.persistentStores[0].identifier)
        #expect(info[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken == writing.currentPersistentHistoryToken(fromStores: nil))
        try watching.remove(watching.persistentStores[0])
    }
}

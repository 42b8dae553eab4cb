import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Collects the notifications of one name posted while it is alive.
final class Inbox: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [Notification] = []
    private var token: NSObjectProtocol?
    init(_ name: Notification.Name, object: AnyObject?) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
            guard let self else { return }
            self.lock.withLock { self.received.append(note) }
        }
    }
    var notes: [Notification] { lock.withLock { received } }
    deinit { if let token { NotificationCenter.default.removeObserver(token) } }
}

/// The userInfo keys of the context's and coordinator's notifications, read by their
/// `NSManagedObjectContext.NotificationKey` spellings and the `NS…Key` constants.
@Suite("Context notification keys", .serialized)
struct ContextNotificationKeyTests {
    @Test func willSaveAndTheObjectIDKeysOfDidSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let willSave = Inbox(.NSManagedObjectContextWillSave, object: context)
        let didSave = Inbox(NSManagedObjectContext.didSaveObjectIDsNotification, object: context)
        let product = insertProducts(context, count: 1)[0]
        try context.save()
        #expect(willSave.notes.count == 1)
        let inserted = didSave.notes.last?.userInfo?[NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<NSManagedObjectID>
        #expect(inserted == [product.objectID])
        let id = product.objectID
        context.delete(product)
        try context.save()
        #expect(willSave.notes.count == 2)
        let deleted = didSave.notes.last?.userInfo?[NSManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue] as? Set<NSManagedObjectID>
        #expect(deleted == [id])
    }

    @Test func refreshAllObjectsAndResetNameWhatTheyRefreshedAndInvalidated() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let products = insertProducts(context, count: 2)
        try context.save()
        let changes = Inbox(.NSManagedObjectContextObjectsDidChange, object: context)
        context.refreshAllObjects()
        let refreshed = changes.notes.last?.userInfo?[NSManagedObjectContext.NotificationKey.refreshedObjects.rawValue] as? Set<NSManagedObject>
        #expect(refreshed == Set(products))
        #expect(NSRefreshedObjectsKey == NSManagedObjectContext.NotificationKey.refreshedObjects.rawValue)
        context.reset()
        #expect(changes.notes.last?.userInfo?[NSInvalidatedAllObjectsKey] != nil)
        #expect(NSInvalidatedAllObjectsKey == NSManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue)
    }

    @Test func mergingASaveNamesTheRefreshedObjectIDs() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        let product = insertProducts(context, count: 1)[0]
        try context.save()
        let merged = Inbox(NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: context)
        let other = container.newBackgroundContext()
        var saved: Notification?
        try other.performAndWait {
            let copy = try #require(try other.existingObject(with: product.objectID) as? Products)
            copy.price = 11
            let inbox = Inbox(.NSManagedObjectContextDidSave, object: other)
            try other.save()
            saved = inbox.notes.last
        }
        context.mergeChanges(fromContextDidSave: try #require(saved))
        let refreshed = merged.notes.last?.userInfo?[NSManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue] as? Set<NSManagedObjectID>
        #expect(refreshed == [product.objectID])
        #expect(product.price == 11)
    }

    @Test func removingAStorePostsStoresWillChangeFirst() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        let store = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let willChange = Inbox(.NSPersistentStoreCoordinatorStoresWillChange, object: coordinator)
        try coordinator.remove(store)
        let removed = willChange.notes.last?.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore]
        #expect(removed?.first === store)
    }
}

import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`: a store added with it announces saves made
/// through another coordinator (`NSPersistentStoreRemoteChange`); a store without the capability
/// announces nothing.
@Suite("Conformance: remote change notices")
struct ConformanceRemoteChangeTests {
    static var posting: [AnyHashable: Any] { [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true, NSPersistentHistoryTrackingKey: true] }

    /// Whether `watching` announces a save made through `writing` within `seconds`.
    static func announces(_ watching: NSPersistentStoreCoordinator, saveThrough writing: NSPersistentStoreCoordinator, within seconds: Double) throws -> Bool {
        let posted = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: watching, queue: nil) { _ in posted.signal() }
        defer { NotificationCenter.default.removeObserver(observer) }
        try ConformanceModel.seedAuthors(StorePlace.context(of: writing))
        return posted.wait(timeout: .now() + seconds) == .success
    }

    /// Another coordinator's save is announced with the store's URL, UUID and token; the coordinator's own is not.
    @Test(arguments: StoreUnderTest.with(.remoteChangeNotices))
    func anotherCoordinatorsSaveIsAnnounced(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let watching = try place.coordinator(options: Self.posting)
        defer { try? watching.remove(watching.persistentStores[0]) }
        let inbox = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: watching, queue: nil) { inbox.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        try ConformanceModel.seedAuthors(StorePlace.context(of: watching))
        #expect(!inbox.wait(0.3), "its own save is not a remote change")
        let writing = try place.coordinator(options: Self.posting)
        try ConformanceModel.seedAuthors(StorePlace.context(of: writing))
        #expect(inbox.wait(5), "the other coordinator's save is announced")
        let info = try #require(inbox.all.first?.info)
        #expect(info[NSPersistentStoreURLKey] as? URL == place.url)
        #expect(info[NSStoreUUIDKey] as? String == watching.persistentStores[0].identifier)
        #expect(info[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken == writing.currentPersistentHistoryToken(fromStores: nil))
    }

    @Test(arguments: StoreUnderTest.without(.remoteChangeNotices))
    func nothingIsAnnounced(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let watching = try place.coordinator(options: Self.posting)
        #expect(try !Self.announces(watching, saveThrough: place.coordinator(options: Self.posting), within: 0.3))
    }
}

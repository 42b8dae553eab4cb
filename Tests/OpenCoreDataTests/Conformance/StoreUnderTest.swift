import Foundation
import Testing
import OpenCoreData

/// What a store type offers beyond fetching and saving, which every store must do. A conformance test of
/// a capability runs on the stores that declare it; a companion test checks that the stores that do not
/// declare it refuse the operation with a clear error (or, where Core Data documents a quiet fallback,
/// show that fallback), so an undeclared capability never passes silently.
enum StoreCapability: String, CaseIterable, Sendable {
    /// Saved objects are read back by a new coordinator on the same URL.
    case persistsAcrossCoordinators
    /// `NSBatchInsertRequest`, `NSBatchUpdateRequest`, `NSBatchDeleteRequest`.
    case batchRequests
    /// `NSPersistentHistoryTrackingKey` and `NSPersistentHistoryChangeRequest`.
    case persistentHistory
    /// `setQueryGenerationFrom(_:)` pins a context to a generation.
    case queryGenerations
    /// Reopening with a newer model version migrates the store where it lies (lightweight migration).
    case migrationInPlace
    /// Uniqueness constraints are checked against the rows already stored.
    case uniquenessConstraints
    /// A save of an object changed elsewhere since it was read is a merge conflict.
    case optimisticLocking
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` announces other coordinators' saves.
    case remoteChangeNotices
    /// Fetches with `.dictionaryResultType`.
    case dictionaryResults
}

/// One store type as the conformance suite sees it: how to make a fresh store of it (type string, URL in a
/// temporary folder, options), how to reopen it, and the capabilities it declares. Adding a store to the
/// suite is adding one value to ``all``.
struct StoreUnderTest: Sendable, CustomTestStringConvertible {
    /// The name test results show.
    let name: String
    /// The type string for `addPersistentStore(ofType:configurationName:at:options:)`.
    let type: String
    /// The store's file name in its temporary folder; `nil` for a store added without a URL.
    let fileName: String?
    /// What the store offers beyond fetching and saving.
    let capabilities: Set<StoreCapability>
    /// Options every store of this type is added with (tests may add their own).
    var options: @Sendable () -> [AnyHashable: Any] = { [:] }
    /// Runs before a store is added (registering a custom store class).
    var prepare: @Sendable () -> Void = {}
    /// Where a new store of this type lives, given its temporary folder (default: ``fileName`` in it).
    var location: (@Sendable (URL) -> URL?)? = nil

    var testDescription: String { name }

    func has(_ capability: StoreCapability) -> Bool { capabilities.contains(capability) }

    /// A new place for a store of this type: an empty temporary folder.
    func fresh() -> StorePlace { StorePlace(self) }

    static let sqlite = StoreUnderTest(name: "SQLite", type: NSSQLiteStoreType, fileName: "Store.sqlite",
                                       capabilities: Set(StoreCapability.allCases))
    static let inMemory = StoreUnderTest(name: "in-memory", type: NSInMemoryStoreType, fileName: nil,
                                         capabilities: [.batchRequests, .persistentHistory, .uniquenessConstraints, .optimisticLocking, .dictionaryResults])
    static let binary = StoreUnderTest(name: "binary", type: NSBinaryStoreType, fileName: "Store.binary",
                                       capabilities: [.persistsAcrossCoordinators, .uniquenessConstraints, .optimisticLocking, .dictionaryResults])
    static let xml = StoreUnderTest(name: "XML", type: NSXMLStoreType, fileName: "Store.xml",
                                    capabilities: [.persistsAcrossCoordinators, .uniquenessConstraints, .optimisticLocking, .dictionaryResults])
    static let incremental = StoreUnderTest(name: "incremental", type: DictionaryIncrementalStore.type, fileName: "Store.records",
                                            capabilities: [.persistsAcrossCoordinators, .uniquenessConstraints, .optimisticLocking],
                                            prepare: { NSPersistentStoreCoordinator.registerStoreClass(DictionaryIncrementalStore.self, forStoreType: DictionaryIncrementalStore.type) })

    /// The PostgreSQL store (OpenCoreDataPostgres), each store in a schema of its own on the tests' server
    /// (``PostgresTestServer``); added by its URL with the default type, as a description made from a
    /// `postgres://` URL is.
    static let postgres = StoreUnderTest(name: "PostgreSQL", type: NSSQLiteStoreType, fileName: nil,
                                         capabilities: [.persistsAcrossCoordinators, .uniquenessConstraints, .optimisticLocking, .dictionaryResults,
                                                        .queryGenerations, .remoteChangeNotices, .persistentHistory, .batchRequests, .migrationInPlace],
                                         location: { _ in PostgresTestServer.storeURL() })

    /// Every store type the suite runs against (PostgreSQL when a server is there: ``PostgresServerTests``
    /// fails or skips, saying why, when it is not).
    static let all: [StoreUnderTest] = [.sqlite, .inMemory, .binary, .xml, .incremental] + (PostgresTestServer.unavailable == nil ? [.postgres] : [])

    /// The stores that declare `capability`.
    static func with(_ capability: StoreCapability) -> [StoreUnderTest] { all.filter { $0.has(capability) } }
    /// The stores that do not declare `capability`.
    static func without(_ capability: StoreCapability) -> [StoreUnderTest] { all.filter { !$0.has(capability) } }
}

/// A temporary folder holding one store of a ``StoreUnderTest``: each ``coordinator(_:options:)`` adds the
/// store at the same URL to a new coordinator (the first makes it, later ones reopen it).
struct StorePlace {
    let store: StoreUnderTest
    let directory: URL
    /// The store's URL (`nil` for a store added without one).
    let url: URL?

    init(_ store: StoreUnderTest) {
        self.store = store
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-conformance-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        url = store.location.map { $0(directory) } ?? store.fileName.map { directory.appendingPathComponent($0) }
    }

    /// Removes the folder, and a store that lives elsewhere (a PostgreSQL schema).
    func cleanUp() {
        if store.location != nil, let url {
            try? NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel()).destroyPersistentStore(at: url, ofType: store.type)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new coordinator with the store added (made or reopened) with `model`.
    func coordinator(_ model: NSManagedObjectModel = ConformanceModel.make(), options: [AnyHashable: Any] = [:]) throws -> NSPersistentStoreCoordinator {
        store.prepare()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: store.type, configurationName: nil, at: url,
                                           options: store.options().merging(options) { $1 })
        return coordinator
    }

    /// A private-queue context of a new coordinator (see ``coordinator(_:options:)``).
    func context(_ model: NSManagedObjectModel = ConformanceModel.make(), options: [AnyHashable: Any] = [:]) throws -> NSManagedObjectContext {
        try Self.context(of: coordinator(model, options: options))
    }

    /// A new private-queue context of `coordinator`.
    static func context(of coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

extension StoreUnderTest {
    /// Runs `body` on a context of a fresh store of this kind seeded with ``ConformanceModel``'s authors
    /// and books, the context reset first (so that every object is read from the store), then removes the store.
    func withSeededAuthors(_ body: (NSManagedObjectContext) throws -> Void) throws {
        let place = fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try ConformanceModel.seedAuthors(context)
        try context.performAndWait { () throws in
            context.reset()
            try body(context)
        }
    }
}

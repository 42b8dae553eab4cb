import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// `/dev/null` as a SQLite store's URL: Apple's documented idiom for a SQLite store kept in memory, private
/// to its coordinator (an app's tests use it everywhere). It behaves as a SQLite store (SQL, batch
/// requests, history), writes no file, and destroying it touches nothing.
@Suite("SQLite stores at /dev/null")
struct DevNullStoreTests {
    static let devNull = URL(fileURLWithPath: "/dev/null")

    private func container(_ options: [String: NSObject] = [:]) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Products", managedObjectModel: makeProductsModel())
        let description = NSPersistentStoreDescription(url: Self.devNull)
        for (key, value) in options { description.setOption(value, forKey: key) }
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    @Test func aContainerAtDevNullSavesAndFetchesInMemory() throws {
        let container = try container()
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
        #expect(store.type == NSSQLiteStoreType && store.url == Self.devNull)
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            insertProducts(context, count: 5)
            try context.save()
            context.reset()
            #expect(try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == 5)
        }
        // Another coordinator at /dev/null has a store of its own.
        let other = try self.container().newBackgroundContext()
        #expect(try other.performAndWait { try other.count(for: NSFetchRequest<Products>(entityName: "Products")) } == 0)
    }

    @Test func batchRequestsAndHistoryWorkAsOnAFile() throws {
        let container = try container([NSPersistentHistoryTrackingKey: NSNumber(value: true)])
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            insertProducts(context, count: 3)
            try context.save()
            let update = NSBatchUpdateRequest(entityName: "Products")
            update.propertiesToUpdate = ["price": NSNumber(value: 7)]
            update.resultType = .updatedObjectsCountResultType
            let result = try context.execute(update) as? NSBatchUpdateResult
            #expect(result?.result as? Int == 3)
            let history = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            #expect((history?.result as? [NSPersistentHistoryTransaction])?.count == 2)
        }
    }

    @Test func destroyingADevNullStoreRemovesItAndTouchesNoFile() throws {
        let container = try container()
        let coordinator = container.persistentStoreCoordinator
        try coordinator.destroyPersistentStore(at: Self.devNull, type: .sqlite)
        #expect(coordinator.persistentStores.isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        #expect(attributes[.type] as? FileAttributeType == .typeCharacterSpecial)
    }

    static func named() -> URL { URL(fileURLWithPath: "/dev/null/ocd-\(UUID().uuidString)") }

    private func coordinator(_ url: URL, model: NSManagedObjectModel = makeProductsModel(), options: [AnyHashable: Any] = [:]) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        return coordinator
    }

    private func count(_ coordinator: NSPersistentStoreCoordinator, _ entity: String = "Products") throws -> Int {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) }
    }

    private func insert(_ coordinator: NSPersistentStoreCoordinator, _ n: Int) throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws in
            insertProducts(context, count: n)
            try context.save()
        }
    }

    /// `/dev/null/<name>`: every coordinator of the process that opens the same name shares one database,
    /// for as long as one of them has it open; another name is another database.
    @Test func aNamedInMemoryStoreIsSharedByTheCoordinatorsOpeningIt() throws {
        let url = Self.named()
        let a = try coordinator(url), b = try coordinator(url)
        try insert(a, 4)
        #expect(try count(b) == 4)
        try insert(b, 1)
        #expect(try count(a) == 5)
        #expect(a.persistentStores[0].identifier == b.persistentStores[0].identifier)
        // A batch request of one coordinator changes the rows the other reads.
        let batch = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        batch.persistentStoreCoordinator = b
        try batch.performAndWait { () throws in
            _ = try batch.execute(NSBatchInsertRequest(entityName: "Products", objects: [["name": "batch", "price": 1]]))
        }
        #expect(try count(a) == 6)
        try batch.performAndWait { () throws in
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Products"))
            delete.fetchRequest.predicate = NSPredicate(format: "name == %@", "batch")
            _ = try batch.execute(delete)
        }
        #expect(try count(a) == 5)
        #expect(try count(coordinator(Self.named())) == 0)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        // When the last coordinator lets it go, the database is gone.
        try a.remove(a.persistentStores[0])
        #expect(try count(b) == 5)
        try b.remove(b.persistentStores[0])
        #expect(try count(coordinator(url)) == 0)
    }

    /// Coordinators sharing a named store hear of each other's saves (`NSPersistentStoreRemoteChange`, with
    /// the history token) when the options ask for it, as Core Data's do.
    @Test func sharingCoordinatorsPostRemoteChangesToEachOther() throws {
        let url = Self.named()
        let options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true]
        let writer = try coordinator(url, options: options), watcher = try coordinator(url, options: options)
        let box = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: watcher, queue: nil) { box.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        try insert(writer, 2)
        let deadline = Date().addingTimeInterval(10)
        while box.notes.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let note = try #require(box.notes.first)
        #expect(note.userInfo?[NSPersistentHistoryTokenKey] is NSPersistentHistoryToken)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = watcher
        let transactions = try context.performAndWait {
            try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
        }
        #expect((transactions?.result as? [NSPersistentHistoryTransaction])?.first?.changes?.count == 2)
    }

    /// A coordinator with a newer model meets the store another coordinator made: refused without the
    /// migration options (the store untouched), migrated in place with them.
    @Test func aNamedStoreMigratesInPlace() throws {
        let url = Self.named()
        let old = try coordinator(url, model: SampleModel.make())
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = old
        try context.performAndWait { () throws in
            NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context).setValue("kept", forKey: "s")
            try context.save()
        }
        let newer = SampleModel.make(adding: [NSAttributeDescription(name: "extra", type: .stringAttributeType)])
        let refusal = #expect(throws: CoreDataError.self) { try coordinator(url, model: newer) }
        #expect(refusal?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(try count(old, "Sample") == 1)
        // A model built in code has no versions to find the store's among: a staged migration names both.
        let refs = [SampleModel.make(), newer].map { NSManagedObjectModelReference(model: $0, versionChecksum: $0.versionChecksum) }
        let manager = NSStagedMigrationManager([NSCustomMigrationStage(migratingFrom: refs[0], to: refs[1])])
        let migrated = try coordinator(url, model: newer, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        #expect(try count(migrated, "Sample") == 1)
        #expect(migrated.persistentStores[0].metadata[NSStoreModelVersionHashesKey] != nil)
    }

    @Test func aReadOnlyNamedStoreNeedsAnotherCoordinatorToHoldIt() throws {
        let url = Self.named()
        let error = #expect(throws: CoreDataError.self) { try coordinator(url, options: [NSReadOnlyPersistentStoreOption: true]) }
        #expect(error?.message.contains(url.path) == true)
        let holder = try coordinator(url)
        try insert(holder, 3)
        let reader = try coordinator(url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(try count(reader) == 3)
        #expect(throws: Error.self) { try insert(reader, 1) }
        #expect(try count(holder) == 3)
    }
}

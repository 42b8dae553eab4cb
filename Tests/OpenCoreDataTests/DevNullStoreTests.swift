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

    @Test func aNamedInMemoryStoreIsRefusedClearly() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        let error = #expect(throws: CoreDataError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "/dev/null/shared"))
        }
        #expect(error?.code == NSPersistentStoreOpenError)
        #expect(error?.message.contains("/dev/null/shared") == true)
        #expect(coordinator.persistentStores.isEmpty)
    }
}

import Foundation
import Testing
import OpenCoreData
import OpenCoreDataTesting

/// Code written against Apple's declarations of `perform` and `performAndWait` compiles and runs here:
/// non-`Sendable` values out of the async `perform`, a non-throwing block called without `try`, and the
/// non-generic `performAndWait(_:)`.
@Suite("Apple's perform signatures")
struct AppleSignatureTests {
    @Test func asyncPerformReturnsTheContextsOwnObjects() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().newBackgroundContext()
        let names: [String] = await context.perform {  // no `try`: the block does not throw
            insertProducts(context, count: 3).compactMap(\.name)
        }
        #expect(names.count == 3)
        let objects: [Products] = try await context.perform {  // non-Sendable result, throwing block
            try context.save()
            return try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
        }
        #expect(objects.count == 3 && objects.allSatisfy { $0.managedObjectContext === context })
        await #expect(throws: CoreDataError.self) {
            try await context.perform(schedule: .enqueued) { _ = try context.fetch(NSFetchRequest<Products>(entityName: "Nope")) }
        }
        let coordinator = try #require(context.persistentStoreCoordinator)
        let stores: [NSPersistentStore] = await coordinator.perform { coordinator.persistentStores }
        #expect(stores.count == 1)
    }

    @Test func nonGenericPerformAndWaitRunsOnTheQueue() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.newBackgroundContext()
        var inserted = 0
        let block: () -> Void = { inserted = insertProducts(context, count: 2).count }
        context.performAndWait(block)
        #expect(inserted == 2 && context.insertedObjects.count == 2)
        var ran = false
        container.persistentStoreCoordinator.performAndWait { ran = true }
        #expect(ran)
    }
}

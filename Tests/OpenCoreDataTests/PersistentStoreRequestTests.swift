import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// `NSPersistentStoreRequest` and its family: request types, `affectedStores`, `NSSaveChangesRequest`.
@Suite("Persistent store requests")
struct PersistentStoreRequestTests {
    @Test func requestTypesHaveCoreDataRawValues() {
        #expect(NSPersistentStoreRequestType.fetchRequestType.rawValue == 1)
        #expect(NSPersistentStoreRequestType.saveRequestType.rawValue == 2)
        #expect(NSPersistentStoreRequestType.batchInsertRequestType.rawValue == 5)
        #expect(NSPersistentStoreRequestType.batchUpdateRequestType.rawValue == 6)
        #expect(NSPersistentStoreRequestType.batchDeleteRequestType.rawValue == 7)
        #expect(NSPersistentStoreRequestType(rawValue: 3) == nil)
        let fetch: NSPersistentStoreRequest = NSFetchRequest<Products>(entityName: "Products")
        #expect(fetch.requestType == .fetchRequestType)
        #expect(NSSaveChangesRequest(insertedObjects: nil, updatedObjects: nil, deletedObjects: nil, lockedObjects: nil).requestType == .saveRequestType)
    }

    @Test func saveChangesRequestCarriesItsObjects() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let products = insertProducts(context, count: 3)
        let request = NSSaveChangesRequest(inserted: [products[0]], updated: [products[1]], deleted: nil, locked: [products[2]])
        #expect(request.insertedObjects == [products[0]])
        #expect(request.updatedObjects == [products[1]])
        #expect(request.deletedObjects == nil)
        #expect(request.lockedObjects == [products[2]])
        #expect(request.affectedStores == nil)
    }

    @Test func aFetchSearchesOnlyItsAffectedStores() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let otherStore = TemporaryStore()
        defer { otherStore.cleanUp() }
        let other = try otherStore.container()
        let context = container.viewContext
        insertProducts(context, count: 4)
        try context.save()
        let request = NSFetchRequest<Products>(entityName: "Products")
        #expect(try context.fetch(request).count == 4)
        request.affectedStores = container.persistentStoreCoordinator.persistentStores
        #expect(try context.fetch(request).count == 4)
        #expect(try context.count(for: request) == 4)
        // A store of another coordinator, or none: this store is not searched.
        for stores in [other.persistentStoreCoordinator.persistentStores, []] {
            request.affectedStores = stores
            #expect(try context.fetch(request).isEmpty)
            #expect(try context.count(for: request) == 0)
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Products")
            ids.resultType = .managedObjectIDResultType
            ids.affectedStores = stores
            #expect(try context.fetch(ids).isEmpty)
            let batched = NSFetchRequest<Products>(entityName: "Products")
            batched.fetchBatchSize = 2
            batched.affectedStores = stores
            #expect(try context.fetch(batched).isEmpty)
        }
        // Unsaved inserted objects belong to no store yet: they are still found.
        insertProducts(context, count: 1, seed: 7)
        #expect(try context.fetch(request).count == 1)
    }
}

import Foundation
import Testing
import OpenCoreData
import OpenCoreDataTesting

/// `stalenessInterval`: how old a row another context read may be for a fault to use it.
@Suite("Staleness interval")
struct StalenessIntervalTests {
    /// A product saved, read by one context (its row now in the coordinator's cache), then renamed by
    /// another coordinator behind that cache. Returns the name a fresh context's fault shows after
    /// waiting `wait` seconds, with `interval` as its staleness interval.
    func nameSeenByAFault(interval: TimeInterval, wait: TimeInterval = 0) throws -> String? {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let id = try container.viewContext.performAndWait {
            let product = insertProducts(container.viewContext, count: 1)[0]
            product.name = "Before"
            try container.viewContext.save()
            return product.objectID
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait { _ = try reader.fetch(NSFetchRequest<Products>(entityName: "Products")).map(\.name) }
        let elsewhere = try store.container().viewContext
        try elsewhere.performAndWait {
            let product = try elsewhere.existingObject(with: elsewhere.persistentStoreCoordinator!.managedObjectID(forURIRepresentation: id.uriRepresentation())!) as! Products
            product.name = "After"
            try elsewhere.save()
        }
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        let faulting = container.newBackgroundContext()
        faulting.stalenessInterval = interval
        return faulting.performAndWait { (faulting.object(with: id) as! Products).name }
    }

    @Test func theDefaultUsesAnyCachedRow() throws {
        #expect(NSManagedObjectContext(.privateQueue).stalenessInterval == -1)
        #expect(try nameSeenByAFault(interval: -1) == "Before", "the row cache answered, as Core Data's does")
    }

    @Test func zeroAlwaysReadsTheStore() throws {
        #expect(try nameSeenByAFault(interval: 0) == "After")
    }

    @Test func aPositiveIntervalTakesRowsYoungerThanIt() throws {
        #expect(try nameSeenByAFault(interval: 60) == "Before")
        #expect(try nameSeenByAFault(interval: 0.05, wait: 0.2) == "After")
    }
}

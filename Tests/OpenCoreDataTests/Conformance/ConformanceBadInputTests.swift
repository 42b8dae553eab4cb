import Foundation
import OpenCoreData
import Testing

/// Bad input gets a clear error from every store, and nothing is written.
@Suite("Conformance: bad input")
struct ConformanceBadInputTests {
    @Test(arguments: StoreUnderTest.all)
    func unknownKeysInPredicatesAndSortsThrow(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try ConformanceModel.seedAuthors(context)
        context.performAndWait {
            let predicate = ConformanceModel.request("Book", "noSuchKey == 1")
            #expect(throws: CoreDataError.self) { try context.fetch(predicate) }
            let sort = ConformanceModel.request("Book", sortedBy: "noSuchKey")
            #expect(throws: CoreDataError.self) { try context.fetch(sort) }
            #expect(throws: CoreDataError.self) { try context.count(for: ConformanceModel.request("Book", "author.noSuchKey == 'x'")) }
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func anUnknownEntityThrows(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        context.performAndWait {
            #expect(throws: CoreDataError.self) { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "NoSuchEntity")) }
        }
    }

    @Test(arguments: StoreUnderTest.with(.persistsAcrossCoordinators))
    func aStoreAddedTwiceToOneCoordinatorIsRefused(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator()
        #expect(throws: CoreDataError.self) {
            try coordinator.addPersistentStore(ofType: store.type, configurationName: nil, at: place.url, options: store.options())
        }
        #expect(coordinator.persistentStores.count == 1)
    }
}

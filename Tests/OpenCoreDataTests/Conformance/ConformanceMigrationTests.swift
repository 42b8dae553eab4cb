import Foundation
import OpenCoreData
import Testing

/// Lightweight migration in place: a store saved with model version 1, reopened with version 2 (a new
/// optional `Book.subtitle`) and the automatic-migration options, keeps its objects and takes the new
/// attribute. Without the options, a store of another model version is refused
/// (`NSPersistentStoreIncompatibleVersionHashError`).
@Suite("Conformance: migration in place")
struct ConformanceMigrationTests {
    static var automatic: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    @Test(arguments: StoreUnderTest.with(.migrationInPlace))
    func reopeningWithANewVersionMigrates(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        try ConformanceModel.seedAuthors(place.context(ConformanceModel.make(version: 1)))
        let migrated = try place.context(ConformanceModel.make(version: 2), options: Self.automatic)
        try migrated.performAndWait { () throws in
            let books = try migrated.fetch(ConformanceModel.request("Book", sortedBy: "title"))
            #expect(books.map { $0.value(forKey: "title") as? String } == ["Compiler", "Engine", "Notes", "Sketch"])
            #expect(books.allSatisfy { $0.value(forKey: "subtitle") == nil && $0.value(forKey: "author") != nil })
            books[0].setValue("A subtitle", forKey: "subtitle")
            try migrated.save()
        }
        let reopened = try place.context(ConformanceModel.make(version: 2))
        #expect(try reopened.performAndWait { try ConformanceModel.values("Book", "subtitle", in: reopened) }.contains("A subtitle"))
    }

    @Test(arguments: StoreUnderTest.with(.migrationInPlace))
    func withoutTheOptionsAnotherVersionIsRefused(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        try ConformanceModel.seedAuthors(place.context(ConformanceModel.make(version: 1)))
        let error = #expect(throws: CoreDataError.self) { try place.coordinator(ConformanceModel.make(version: 2)) }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        let kept = try place.context(ConformanceModel.make(version: 1))
        #expect(try kept.performAndWait { try kept.count(for: ConformanceModel.request("Book")) } == 4, "the refused store is kept as it was")
    }

    /// A persistent store that cannot migrate in place refuses a newer model version with a clear error,
    /// even with the automatic-migration options, and keeps its file.
    @Test(arguments: StoreUnderTest.without(.migrationInPlace).filter { $0.has(.persistsAcrossCoordinators) })
    func aStoreThatCannotMigrateRefusesAnotherVersion(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        try ConformanceModel.seedAuthors(place.context(ConformanceModel.make(version: 1)))
        let error = #expect(throws: CoreDataError.self) { try place.coordinator(ConformanceModel.make(version: 2), options: Self.automatic) }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError || error?.code == NSMigrationError)
        let kept = try place.context(ConformanceModel.make(version: 1))
        #expect(try kept.performAndWait { try kept.count(for: ConformanceModel.request("Book")) } == 4)
    }
}

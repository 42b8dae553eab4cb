import Foundation
import OpenCoreData
import Testing

/// Fetch shapes every store answers: objects, IDs, counts, predicates, sorts, windows, pending changes;
/// dictionaries where the store declares them.
@Suite("Conformance: fetch")
struct ConformanceFetchTests {
    @Test(arguments: StoreUnderTest.all)
    func predicateSortAndWindow(_ store: StoreUnderTest) throws {
        try store.withSeededAuthors { context throws in
            let request = ConformanceModel.request("Book", "pages >= 200", sortedBy: "title")
            #expect(try context.fetch(request).map { $0.value(forKey: "title") as? String } == ["Engine", "Sketch"])
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
            request.predicate = nil
            request.fetchOffset = 1
            request.fetchLimit = 2
            #expect(try context.fetch(request).map { $0.value(forKey: "pages") as? Int } == [200, 100])
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func countsAndObjectIDs(_ store: StoreUnderTest) throws {
        try store.withSeededAuthors { context throws in
            #expect(try context.count(for: ConformanceModel.request("Book")) == 4)
            #expect(try context.count(for: ConformanceModel.request("Book", "title BEGINSWITH[c] 'e'")) == 1)
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Author")
            ids.resultType = .managedObjectIDResultType
            let found = try context.fetch(ids)
            #expect(found.count == 2 && found.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Author" })
            let names = try found.map { try context.existingObject(with: $0).value(forKey: "name") as? String }
            #expect(Set(names) == ["Ada", "Grace"])
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func pendingChangesAreFetched(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try ConformanceModel.seedAuthors(context)
        try context.performAndWait { () throws in
            ConformanceModel.author("Alan", books: [], in: context)
            let grace = try #require(try context.fetch(ConformanceModel.request("Author", "name == 'Grace'")).first)
            context.delete(grace)
            #expect(try ConformanceModel.values("Author", "name", in: context) == ["Ada", "Alan"])
            let stored = ConformanceModel.request("Author", sortedBy: "name")
            stored.includesPendingChanges = false
            #expect(try context.fetch(stored).count == 2, "without pending changes the store's two authors (Grace not yet deleted there)")
        }
    }

    @Test(arguments: StoreUnderTest.with(.dictionaryResults))
    func dictionaries(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try ConformanceModel.seedAuthors(context)
        try context.performAndWait { () throws in
            let request = NSFetchRequest<NSDictionary>(entityName: "Book")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["title", "pages"]
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let rows = try context.fetch(request)
            #expect(rows.map { $0["title"] as? String } == ["Compiler", "Engine", "Notes", "Sketch"])
            #expect(rows.map { ($0["pages"] as? NSNumber)?.intValue } == [100, 300, 100, 200])
        }
    }

    @Test(arguments: StoreUnderTest.without(.dictionaryResults))
    func dictionariesAreRefused(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try ConformanceModel.seedAuthors(context)
        context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Book")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["title"]
            let error = #expect(throws: CoreDataError.self) { try context.fetch(request) }
            #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
        }
    }
}

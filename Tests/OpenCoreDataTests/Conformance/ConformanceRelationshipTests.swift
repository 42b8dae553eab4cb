import Foundation
import OpenCoreData
import Testing

/// Relationships and faults: both sides read back after a reset, predicates across a relationship,
/// the cascade delete rule, and a fault whose object another context deleted.
@Suite("Conformance: relationships and faults")
struct ConformanceRelationshipTests {
    @Test(arguments: StoreUnderTest.all)
    func bothSidesReadBackAsFaultsFire(_ store: StoreUnderTest) throws {
        try store.withSeededAuthors { context throws in
            let ada = try #require(try context.fetch(ConformanceModel.request("Author", "name == 'Ada'")).first)
            let books = try #require(ada.value(forKey: "books") as? Set<NSManagedObject>)
            #expect(Set(books.map { $0.value(forKey: "title") as? String }) == ["Notes", "Sketch", "Engine"])
            #expect(books.allSatisfy { $0.value(forKey: "author") as? NSManagedObject === ada })
            let compiler = try #require(try context.fetch(ConformanceModel.request("Book", "title == 'Compiler'")).first)
            #expect((compiler.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String == "Grace")
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func predicatesAcrossRelationships(_ store: StoreUnderTest) throws {
        try store.withSeededAuthors { context throws in
            let adasBooks = ConformanceModel.request("Book", "author.name == 'Ada'", sortedBy: "title")
            #expect(try context.fetch(adasBooks).map { $0.value(forKey: "title") as? String } == ["Engine", "Notes", "Sketch"])
            #expect(try ConformanceModel.values("Author", "name", in: context).count == 2)
            let prolific = ConformanceModel.request("Author", "books.@count > 1")
            #expect(try context.fetch(prolific).map { $0.value(forKey: "name") as? String } == ["Ada"])
            let any = ConformanceModel.request("Author", "ANY books.pages >= 300")
            #expect(try context.fetch(any).map { $0.value(forKey: "name") as? String } == ["Ada"])
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func cascadeAndNullifyOnDelete(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator()
        let context = StorePlace.context(of: coordinator)
        try ConformanceModel.seedAuthors(context)
        try context.performAndWait { () throws in
            try context.fetch(ConformanceModel.request("Author", "name == 'Ada'")).forEach(context.delete)
            let compiler = try #require(try context.fetch(ConformanceModel.request("Book", "title == 'Compiler'")).first)
            context.delete(compiler)
            try context.save()
        }
        let other = StorePlace.context(of: coordinator)
        try other.performAndWait { () throws in
            #expect(try ConformanceModel.values("Book", "title", in: other).isEmpty, "Ada's books cascade; Compiler was deleted")
            let grace = try #require(try other.fetch(ConformanceModel.request("Author")).first)
            #expect((grace.value(forKey: "books") as? Set<NSManagedObject>)?.isEmpty == true, "the deleted book left Grace's books")
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func anObjectDeletedElsewhereIsNoLongerExisting(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator()
        let first = StorePlace.context(of: coordinator), second = StorePlace.context(of: coordinator)
        try ConformanceModel.seedAuthors(first)
        let id = try first.performAndWait { try #require(try first.fetch(ConformanceModel.request("Book", "title == 'Notes'")).first).objectID }
        try first.performAndWait { () throws in
            first.delete(try first.existingObject(with: id))
            try first.save()
        }
        second.performAndWait {
            let error = #expect(throws: CoreDataError.self) { try second.existingObject(with: id) }
            #expect(error != nil)
            #expect(second.object(with: id).isFault, "object(with:) returns a fault without reading the store")
        }
    }
}

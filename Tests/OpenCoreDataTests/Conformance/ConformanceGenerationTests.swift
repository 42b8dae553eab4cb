import Foundation
import OpenCoreData
import Testing

/// Query generations: a context pinned with `setQueryGenerationFrom(.current)` keeps reading its
/// generation while another context saves. On a store without generations the context stays unpinned
/// (`queryGenerationToken` is `nil`, as Core Data documents for stores that cannot pin) and reads the
/// store as it is.
@Suite("Conformance: query generations")
struct ConformanceGenerationTests {
    /// Seeds the store, pins `reader`, lets `writer` add an author, and returns the authors `reader` counts.
    static func countAfterAnotherSave(_ place: StorePlace) throws -> (pinned: Bool, count: Int) {
        let coordinator = try place.coordinator()
        let writer = StorePlace.context(of: coordinator), reader = StorePlace.context(of: coordinator)
        try ConformanceModel.seedAuthors(writer)
        return try reader.performAndWait { () throws -> (pinned: Bool, count: Int) in
            try reader.setQueryGenerationFrom(.current)
            #expect(try reader.count(for: ConformanceModel.request("Author")) == 2)
            let pinned = reader.queryGenerationToken != nil
            try writer.performAndWait { () throws in
                ConformanceModel.author("Alan", books: [], in: writer)
                try writer.save()
            }
            return (pinned, try reader.count(for: ConformanceModel.request("Author")))
        }
    }

    @Test(arguments: StoreUnderTest.with(.queryGenerations))
    func aPinnedContextKeepsItsGeneration(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let (pinned, count) = try Self.countAfterAnotherSave(place)
        #expect(pinned && count == 2)
    }

    @Test(arguments: StoreUnderTest.without(.queryGenerations))
    func withoutGenerationsTheContextStaysUnpinned(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let (pinned, count) = try Self.countAfterAnotherSave(place)
        #expect(!pinned && count == 3)
    }
}

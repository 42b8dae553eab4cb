import Foundation
import OpenCoreData
import Testing

/// The SQL-versus-memory differential test against every store: each answers random predicates and every
/// sort selector as `evaluate(with:)` and `sorted(using:)` do in memory (SQLite, in-memory and the atomic
/// stores in SQL; the incremental store by its own evaluation). Objects a sort finds equal keep the order
/// the store returns them in unsorted: SQLite's row order, the incremental store's record order.
@Suite("Conformance: store and memory agree")
struct ConformanceDifferentialTests {
    @Test(arguments: StoreUnderTest.all)
    func randomPredicatesAgree(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context(DifferentialTests.makeModel())
        let compared = try context.performAndWait { try DifferentialTests.compareRandomPredicates(in: context, chunk: 5) }
        #expect(compared > 300)
    }

    @Test(arguments: StoreUnderTest.all)
    func sortSelectorsAgree(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context(DifferentialTests.makeModel())
        try context.performAndWait { try DifferentialTests.compareSortSelectors(in: context, storeOrder: true) }
    }
}

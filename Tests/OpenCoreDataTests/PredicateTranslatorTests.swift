import Foundation
@testable import OpenCoreData
import Testing

/// The dialect-neutral trees the predicate translator builds (no SQLite text here: see
/// ``SQLitePrinterTests`` and ``SQLTextTests``).
@Suite("Predicate translator")
struct PredicateTranslatorTests {
    private func tree(_ format: String, _ args: Any?...) throws -> SQLExpression {
        let model = makeProductsModel()
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        let layout = try #require(model.entitiesByName["Products"]?.layout)
        var translator = PredicateTranslator(layout: layout, entityName: "Products")
        return try translator.condition(NSPredicate(format: format, argumentArray: args.map { $0 ?? NSNull() }).runnableNode())
    }

    private let name = SQLExpression.column(alias: "t0", name: "ZNAME")
    private let price = SQLExpression.column(alias: "t0", name: "ZPRICE")

    @Test func semantics() throws {
        #expect(try tree("NOT price < 5") == .not(.compare(price, .lessThan, .parameter(.int(5)))))
        #expect(try tree("name ==[c] %@", "ABC") == .compare(.function(.fold(.caseInsensitive), [name]), .equal, .parameter(.string("abc"))))
        #expect(try tree("name != 'x'") == .isDistinct(name, .parameter(.string("x"))))
        #expect(try tree("name == nil") == .isNull(name))
        #expect(try tree("name == price") == .and([.isNull(name), .isNull(price)]))
        #expect(try tree("price == 'five'") == .literal(false))
        #expect(try tree("3 < 5 AND price > 1") == .and([.literal(true), .compare(price, .greaterThan, .parameter(.int(1)))]))
        #expect(try tree("name IN %@", ["a", NSNull()] as [Any]) == .or([.inList(name, [.parameter(.string("a"))]), .isNull(name)]))
        #expect(try tree("name BEGINSWITH[cd] 'a'") == .function(.beginsWith([.caseInsensitive, .diacriticInsensitive]), [name, .parameter(.string("a"))]))
        #expect(try tree("price / 2 > 1") == .compare(.arithmetic(price, .divide, .parameter(.int(2))), .greaterThan, .parameter(.int(1))))
    }

    @Test func errorsNameTheEntityAndKey() throws {
        #expect(throws: CoreDataError.self) { try tree("owner.name == 'a'") }
        do {
            _ = try tree("nope == 1")
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("keypath nope not found in entity Products"))
        }
    }
}

import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Predicates built in code can nest without bound. Building one is linear; every path (compile,
/// evaluate, SQL, print) either works or throws "too deeply nested", never overflows the stack (issue 11).
@Suite("Deeply nested predicates")
struct DeepPredicateTests {
    /// A saved store of 40 products (the caller removes `store`).
    func products() throws -> (TemporaryStore, NSManagedObjectContext, [Products]) {
        let store = TemporaryStore()
        let context = try store.container().viewContext
        let products = insertProducts(context, count: 40)
        try context.save()
        return (store, context, products)
    }

    /// `NOT (x AND NOT (y OR NOT (…)))`: every level alternates, so flattening cannot merge any.
    func alternating(_ levels: Int) -> NSPredicate {
        var p = NSPredicate(format: "price < 500")
        for i in 0..<levels {
            let leaf = NSPredicate(format: "price != %d", i)
            switch i % 3 {
            case 0: p = NSCompoundPredicate(notPredicateWithSubpredicate: p)
            case 1: p = NSCompoundPredicate(andPredicateWithSubpredicates: [leaf, p])
            default: p = NSCompoundPredicate(orPredicateWithSubpredicates: [p, leaf])
            }
        }
        return p
    }

    @Test func anOrFoldedOverTenThousandValuesRunsEverywhere() throws {
        let (store, context, products) = try products()
        defer { store.cleanUp() }
        do {
            // What `values.reduce` with two-element OR predicates builds: ten thousand levels, left-deep.
            var folded: NSPredicate = NSPredicate(format: "price == -1")
            for i in 0..<10_000 { folded = NSCompoundPredicate(orPredicateWithSubpredicates: [folded, NSPredicate(format: "price == %d", i * 2)]) }
            #expect(((folded as? NSCompoundPredicate)?.subpredicates.count) == 2, "the structure as built is kept")
            let inMemory = products.filter { folded.evaluate(with: $0) }
            #expect(inMemory.count == products.filter { $0.price % 2 == 0 }.count)
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.predicate = folded
            #expect(Set(try context.fetch(request)) == Set(inMemory))
            #expect(try context.count(for: request) == inMemory.count)
            // Printed flattened (equal in meaning), and that text parses back to an equal filter.
            let text = folded.predicateFormat
            #expect(text.hasPrefix("price == -1 OR price == 0 OR price == 2"))
            let reparsed = try NSPredicate(validatingFormat: text)
            #expect(products.filter { reparsed.evaluate(with: $0) } == inMemory)
        }
    }

    @Test func nestingBeyondTheLimitThrowsTooDeeplyNestedOnEveryPath() throws {
        let (store, context, products) = try products()
        defer { store.cleanUp() }
        do {
            for levels in [400, 10_000] {
                let deep = alternating(levels)
                #expect { try deep.evaluate(validating: products[0]) } throws: { "\($0)".contains("too deeply nested") }
                let request = NSFetchRequest<Products>(entityName: "Products")
                request.predicate = deep
                #expect { try context.fetch(request) } throws: { "\($0)".contains("too deeply nested") }
                #expect { try context.count(for: request) } throws: { "\($0)".contains("too deeply nested") }
                #expect(deep.predicateFormat.contains("too deeply to print"))
                _ = deep.withSubstitutionVariables(["X": 1])
            }
        }
    }

    /// Within our limit, memory evaluates any depth; SQLite's parser stops at about 50 levels of
    /// parentheses, and the fetch then says the predicate is too deeply nested for SQLite.
    @Test func nestingWithinTheLimitAgreesInSQLAndMemory() throws {
        let (store, context, products) = try products()
        defer { store.cleanUp() }
        do {
            for levels in [30, 250] {
                let deep = alternating(levels)
                let inMemory = Set(products.filter { deep.evaluate(with: $0) })
                let request = NSFetchRequest<Products>(entityName: "Products")
                request.predicate = deep
                if levels <= 30 {
                    #expect(Set(try context.fetch(request)) == inMemory)
                } else {
                    #expect { try context.fetch(request) } throws: { "\($0)".contains("too deeply nested for SQLite") }
                }
            }
            let deep = alternating(250)
            #expect(deep.predicateFormat.hasPrefix("NOT ((price != 247 AND NOT"))
        }
    }
}

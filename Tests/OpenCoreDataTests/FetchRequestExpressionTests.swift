import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// `NSFetchRequestExpression`: an expression whose value is a fetch request's results (or their count)
/// in a managed object context, evaluated in memory, alone or inside a predicate.
@Suite("NSFetchRequestExpression")
struct FetchRequestExpressionTests {
    /// A saved store of seeded products and a request for those under 300.
    func withCheapProducts(_ body: (NSManagedObjectContext, NSFetchRequest<Products>, [Products]) throws -> Void) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let products = insertProducts(context, count: 40, seed: 11)
        try context.save()
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.predicate = NSPredicate(format: "price < %d", 300)
        try body(context, request, products)
    }

    func expression(_ request: NSFetchRequest<Products>, _ context: NSManagedObjectContext, countOnly: Bool) -> NSExpression {
        NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: request),
                                            context: NSExpression(forConstantValue: context), countOnly: countOnly)
    }

    @Test func itsPartsAndType() throws {
        try withCheapProducts { context, request, _ throws in
            let requestExpression = NSExpression(forConstantValue: request)
            let contextExpression = NSExpression(forConstantValue: context)
            let made = NSFetchRequestExpression.expression(forFetch: requestExpression, context: contextExpression, countOnly: true)
            let fetch = try #require(made as? NSFetchRequestExpression)
            #expect(fetch.requestExpression === requestExpression)
            #expect(fetch.contextExpression === contextExpression)
            #expect(fetch.requestExpression.constantValue as? NSFetchRequest<Products> === request)
            #expect(fetch.isCountOnlyRequest)
            #expect((expression(request, context, countOnly: false) as? NSFetchRequestExpression)?.isCountOnlyRequest == false)
            #expect(fetch.expressionType == NSFetchRequestExpressionType)
            #expect(NSFetchRequestExpressionType.rawValue == 50)
            #expect(NSExpression.ExpressionType(rawValue: 50) == NSFetchRequestExpressionType)
        }
    }

    /// Its value is what the context's `fetch(_:)` returns, or `count(for:)` when count-only.
    @Test func evaluatesToTheFetchOrItsCount() throws {
        try withCheapProducts { context, request, products throws in
            let cheap = products.filter { $0.price < 300 }
            #expect(!cheap.isEmpty && cheap.count < products.count)
            let value = expression(request, context, countOnly: false).expressionValue(with: nil, context: nil)
            let fetched = try #require(value as? [Products])
            #expect(Set(fetched.map(\.objectID)) == Set(cheap.map(\.objectID)))
            let count = expression(request, context, countOnly: true).expressionValue(with: nil, context: nil)
            #expect(count as? Int == cheap.count)
            // The request runs when the expression is evaluated: an object inserted since is counted.
            let extra = Products(context: context)
            extra.name = "Сыр"
            extra.price = 1
            #expect(expression(request, context, countOnly: true).expressionValue(with: nil, context: nil) as? Int == cheap.count + 1)
        }
    }

    /// Inside a predicate evaluated in memory: `SELF IN FETCH(…)`, and the count compared.
    @Test func inAPredicateEvaluatedInMemory() throws {
        try withCheapProducts { context, request, products throws in
            let isCheap = NSPredicate(format: "SELF IN %@", expression(request, context, countOnly: false))
            for product in products {
                #expect(isCheap.evaluate(with: product) == (product.price < 300), "\(product.price)")
            }
            let cheapCount = products.filter { $0.price < 300 }.count
            let counted = NSPredicate(format: "%@ == %d", expression(request, context, countOnly: true), cheapCount)
            #expect(counted.evaluate(with: nil))
        }
    }

    @Test func printsAsFETCH() throws {
        try withCheapProducts { context, request, _ throws in
            let text = expression(request, context, countOnly: false).description
            #expect(text.hasPrefix("FETCH(") && text.hasSuffix(", NO)"), "\(text)")
            #expect(expression(request, context, countOnly: true).description.hasSuffix(", YES)"))
            #expect(text.contains("NSFetchRequest"), "\(text)")
        }
    }

    /// A store cannot run a fetch of a context inside its query: the fetch throws, naming the entity, and
    /// the context is as it was.
    @Test func aFetchWhosePredicateHoldsOneIsRefused() throws {
        try withCheapProducts { context, request, products throws in
            let outer = NSFetchRequest<Products>(entityName: "Products")
            outer.predicate = NSPredicate(format: "SELF IN %@", expression(request, context, countOnly: false))
            let error = #expect(throws: CoreDataError.self) { try context.fetch(outer) }
            #expect(error?.message.contains("unsupported in a fetch of entity Products: FETCH(") == true, "\(error?.message ?? "")")
            #expect(try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == products.count)
        }
    }

    /// A context expression that is not a managed object context: evaluation fails (Darwin raises).
    @Test func aContextThatIsNotAContextFails() throws {
        try withCheapProducts { _, request, _ throws in
            let wrong = NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: request),
                                                           context: NSExpression(forConstantValue: "context"), countOnly: false)
            #expect(wrong.expressionValue(with: nil, context: nil) == nil)
            let predicate = NSPredicate(format: "%@ == 0", wrong)
            #expect(throws: (any Error).self) { try predicate.evaluate(validating: nil) }
        }
    }
}

import Foundation

/// Mirrors Core Data's `NSFetchRequestExpressionType`: the `expressionType` of an
/// ``NSFetchRequestExpression`` (raw value 50).
public let NSFetchRequestExpressionType = NSExpression.ExpressionType.fetchRequest

/// Mirrors Core Data's `NSFetchRequestExpression`: an expression whose value is the result of executing a
/// fetch request in a managed object context — the array `fetch(_:)` returns, or the number
/// `count(for:)` returns when it is a count-only request. It evaluates in memory
/// (`expressionValue(with:context:)`, and inside a predicate evaluated in memory, such as
/// `SELF IN FETCH(…)`); a fetch whose predicate holds one throws, naming the entity, as SQL cannot run a
/// fetch request of the context. It prints as the format grammar's `FETCH(request, context, NO)`.
///
/// Deviations: an archive cannot hold one (its request and context are live objects), and the
/// expression read back from a predicate that holds one (`rightExpression`) is a plain `NSExpression`
/// whose `expressionType` is ``NSFetchRequestExpressionType``.
open class NSFetchRequestExpression: NSExpression, @unchecked Sendable {
    /// The expressions given to ``expression(forFetch:context:countOnly:)``, returned as they are.
    private var given: (request: NSExpression, context: NSExpression)?

    /// Mirrors `expression(forFetch:context:countOnly:)`: `fetch` evaluates to an `NSFetchRequest`,
    /// `context` to the `NSManagedObjectContext` that executes it; `countFlag` makes the value the count.
    open class func expression(forFetch fetch: NSExpression, context: NSExpression, countOnly countFlag: Bool) -> NSExpression {
        let expression = NSFetchRequestExpression(node: .fetch(fetch.node, context.node, countOnly: countFlag))
        expression.given = (fetch, context)
        return expression
    }

    private var parts: (request: ExpressionNode, context: ExpressionNode, countOnly: Bool) {
        guard case .fetch(let request, let context, let countOnly) = node else { return (.constant(.null), .constant(.null), false) }
        return (request, context, countOnly)
    }

    /// Mirrors `requestExpression`: the expression that evaluates to the fetch request.
    open var requestExpression: NSExpression { given?.request ?? NSExpression(node: parts.request) }

    /// Mirrors `contextExpression`: the expression that evaluates to the managed object context.
    open var contextExpression: NSExpression { given?.context ?? NSExpression(node: parts.context) }

    /// Mirrors `isCountOnlyRequest`: whether the value is the count of the results rather than the results.
    open var isCountOnlyRequest: Bool { parts.countOnly }

    /// Mirrors `expressionValue(with:context:)`: executes the request the request expression evaluates
    /// to in the context the context expression evaluates to (both evaluated against `object`, with
    /// `context`'s variables) and returns `fetch(_:)`'s array as it is, or `count(for:)`'s number;
    /// `nil` when either is not what it must be or the fetch fails (Darwin raises).
    open override func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        guard let request = requestExpression.expressionValue(with: object, context: context) as? FetchExpressionRequest else { return nil }
        let managedContext = contextExpression.expressionValue(with: object, context: context)
        return try? request.resultForFetchExpression(in: managedContext, countOnly: isCountOnlyRequest)
    }
}

extension NSFetchRequest: FetchExpressionRequest {
    /// The value of a `FETCH` expression on this request: `fetch(_:)`'s array, or `count(for:)`.
    package func resultForFetchExpression(in context: Any?, countOnly: Bool) throws -> Any {
        guard let context = context as? NSManagedObjectContext else {
            throw CoreDataError(NSCoreDataError, "the context expression of an NSFetchRequestExpression evaluates to \(context.map { "\(type(of: $0))" } ?? "nil"), not an NSManagedObjectContext")
        }
        return countOnly ? try context.count(for: self) : try context.fetch(self)
    }
}

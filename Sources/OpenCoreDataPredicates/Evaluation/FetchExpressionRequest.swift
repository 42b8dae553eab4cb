import Foundation

/// What a `FETCH(request, context, countOnly)` expression (Core Data's `NSFetchRequestExpression`)
/// needs of the object its request expression evaluates to: Core Data's fetch request conforms, so the
/// evaluator runs the fetch without this module knowing Core Data.
package protocol FetchExpressionRequest: AnyObject {
    /// The request's results in `context` (an array), or their count (an `Int`) when `countOnly`; throws
    /// when `context` is not a managed object context or the fetch fails.
    func resultForFetchExpression(in context: Any?, countOnly: Bool) throws -> Any
}

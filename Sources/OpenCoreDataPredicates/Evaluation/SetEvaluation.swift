import Foundation

/// `UNION`, `INTERSECT` and `MINUS` of two collections (`NSExpression(forUnionSet:with:)` …), in memory.
///
/// Both sides may be an array or a set (Apple documents a set on the left and any collection on the
/// right; an aggregate `{…}` is an array, so both are taken); `nil` is the empty set, as for `ANY`.
/// Elements are the same for `INTERSECT` and `MINUS` when `==` says so (`1` and `1.0` are one element),
/// so that `x IN a INTERSECT b` means `x IN a AND x IN b` and `x IN a MINUS b` means
/// `x IN a AND NOT x IN b`, which is how a store translates them to SQL. The result is a set.
package enum SetEvaluation {
    package static func apply(_ op: SetOperation, _ left: Value, _ right: Value) throws -> Value {
        let l = try elements(left, op), r = try elements(right, op)
        switch op {
        case .union:
            return .set(Set(l).union(r))
        case .intersect:
            return .set(Set(try l.filter { try contains(r, $0) }))
        case .minus:
            return .set(Set(try l.filter { try !contains(r, $0) }))
        }
    }

    private static func contains(_ collection: [Value], _ element: Value) throws -> Bool {
        for candidate in collection where try ValueComparison.evaluate(element, .equalTo, candidate, []) { return true }
        return false
    }

    private static func elements(_ value: Value, _ op: SetOperation) throws -> [Value] {
        if let elements = value.collectionElements { return elements }
        if value.isNull { return [] }
        throw PredicateEvaluationError(.notASet(operation: op.rawValue, found: FunctionEvaluation.describe(value)))
    }
}

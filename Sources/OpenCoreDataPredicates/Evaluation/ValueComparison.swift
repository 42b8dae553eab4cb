import Foundation

/// Equality and order of values, as `NSPredicate` compares them (and as the SQLite store must).
///
/// - `nil` equals only `nil`; an ordered comparison with `nil` is false.
/// - Numbers compare across `Int`, `Double`, `Decimal` and `Bool` (`TRUE == 1`).
/// - Strings follow ``StringMatching`` under the comparison options.
/// - Dates, data, UUIDs and URLs compare with their own kind; values of different kinds are unequal
///   and unordered.
/// - Arrays are equal element by element; sets as sets.
package enum ValueComparison {
    package static func equal(_ a: Value, _ b: Value, _ options: NSComparisonPredicate.Options = []) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)): return StringMatching.equal(x, y, options)
        case (.int(let x), .int(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.url(let x), .url(let y)): return x == y
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, options) }
        case (.set(let x), .set(let y)):
            return x.count == y.count && x.allSatisfy { e in y.contains { equal(e, $0, options) } }
        case (.object(let x), .object(let y)): return x == y
        default:
            if a.isNumber, b.isNumber { return compareNumbers(a, b) == .orderedSame }
            return false
        }
    }

    /// The order of two values, or `nil` when they are not ordered (different kinds, `nil`, collections).
    package static func compare(_ a: Value, _ b: Value, _ options: NSComparisonPredicate.Options = []) -> ComparisonResult? {
        switch (a, b) {
        case (.string(let x), .string(let y)): return StringMatching.compare(x, y, options)
        case (.int(let x), .int(let y)): return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        case (.date(let x), .date(let y)): return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        case (.data(let x), .data(let y)):
            return x == y ? .orderedSame : x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
        case (.uuid(let x), .uuid(let y)): return compare(.string(x.uuidString), .string(y.uuidString))
        case (.url(let x), .url(let y)): return compare(.string(x.absoluteString), .string(y.absoluteString))
        default:
            if a.isNumber, b.isNumber { return compareNumbers(a, b) }
            return nil
        }
    }

    private static func compareNumbers(_ a: Value, _ b: Value) -> ComparisonResult? {
        if case .decimal = a { return compareDecimals(a, b) }
        if case .decimal = b { return compareDecimals(a, b) }
        switch (a, b) {
        case (.int(let x), .bool(let y)): return order(x, Int64(y ? 1 : 0))
        case (.bool(let x), .int(let y)): return order(Int64(x ? 1 : 0), y)
        case (.bool(let x), .bool(let y)): return order(x ? 1 : 0, y ? 1 : 0)
        default:
            guard let x = a.doubleValue, let y = b.doubleValue, !x.isNaN, !y.isNaN else { return nil }
            return order(x, y)
        }
    }

    /// A decimal against a double compares as doubles (the decimal correctly rounded), as the SQLite store
    /// compares them: `price == 19.99` holds for the decimal 19.99. Decimals, integers and booleans
    /// compare exactly.
    private static func compareDecimals(_ a: Value, _ b: Value) -> ComparisonResult? {
        switch (a, b) {
        case (.double, _), (_, .double):
            guard let x = a.doubleValue, let y = b.doubleValue, !x.isNaN, !y.isNaN else { return nil }
            return order(x, y)
        default: break
        }
        func decimal(_ v: Value) -> Decimal? {
            switch v {
            case .decimal(let d): return d
            case .int(let i): return Decimal(i)
            case .bool(let b): return b ? 1 : 0
            default: return nil
            }
        }
        guard let x = decimal(a), let y = decimal(b) else { return nil }
        return order(x, y)
    }

    private static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
    }

    /// A comparison's operator (or custom selector) applied to two values, an element of a quantified
    /// left side and the right side, or the two sides of a `.direct` comparison.
    package static func evaluate(_ left: Value, _ c: ComparisonNode, _ right: Value) throws -> Bool {
        if c.op == .customSelector { return try CustomSelectorRegistry.perform(c.selector, left, right) }
        return try evaluate(left, c.op, right, c.options)
    }

    /// One comparison operator applied to two values (the `.direct` case of a comparison predicate).
    package static func evaluate(
        _ left: Value, _ op: NSComparisonPredicate.Operator, _ right: Value, _ options: NSComparisonPredicate.Options
    ) throws -> Bool {
        switch op {
        case .equalTo: return equal(left, right, options)
        case .notEqualTo: return !equal(left, right, options)
        case .lessThan: return compare(left, right, options) == .orderedAscending
        case .lessThanOrEqualTo:
            guard let r = compare(left, right, options) else { return false }
            return r != .orderedDescending
        case .greaterThan: return compare(left, right, options) == .orderedDescending
        case .greaterThanOrEqualTo:
            guard let r = compare(left, right, options) else { return false }
            return r != .orderedAscending
        case .beginsWith:
            guard case .string(let s) = left, case .string(let p) = right else { return false }
            return StringMatching.beginsWith(s, p, options)
        case .endsWith:
            guard case .string(let s) = left, case .string(let p) = right else { return false }
            return StringMatching.endsWith(s, p, options)
        case .like:
            guard case .string(let s) = left, case .string(let p) = right else { return false }
            return StringMatching.like(s, p, options)
        case .matches:
            guard case .string(let s) = left, case .string(let p) = right else { return false }
            return try StringMatching.matches(s, p, options)
        case .contains:
            if let elements = left.collectionElements { return elements.contains { equal($0, right, options) } }
            guard case .string(let s) = left, case .string(let p) = right else { return false }
            return StringMatching.contains(s, p, options)
        case .in:
            if let elements = right.collectionElements { return elements.contains { equal(left, $0, options) } }
            guard case .string(let s) = right, case .string(let p) = left else { return false }
            return StringMatching.contains(s, p, options)
        case .between:
            guard let bounds = right.collectionElements, bounds.count == 2 else { return false }
            guard let lo = compare(left, bounds[0], options), let hi = compare(left, bounds[1], options) else { return false }
            return lo != .orderedAscending && hi != .orderedDescending
        case .customSelector:
            throw PredicateEvaluationError(.customSelector("(none)", "a custom selector comparison needs its selector"))
        }
    }
}

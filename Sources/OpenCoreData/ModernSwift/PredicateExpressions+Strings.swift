import Foundation
import OpenCoreDataPredicates

#if !canImport(Darwin)
// Foundation on Apple platforms has these string expressions in `#Predicate`; Foundation on Linux has
// not, so `#Predicate { $0.name.localizedStandardContains(text) }` (Apple's SwiftData samples search with
// it) would not compile. These mirror Apple's: the same names, so the macro's expansion finds them.

extension PredicateExpressions {
    /// Mirrors Foundation's `PredicateExpressions.StringLocalizedStandardContains`:
    /// `root.localizedStandardContains(other)` in `#Predicate` (case- and diacritic-insensitive, as the
    /// string method is). As an `NSPredicate` it is `root CONTAINS[cd] other`, as Core Data runs it.
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// Mirrors `Output`: whether `root` contains `other`.
        public typealias Output = Bool
        /// Mirrors `root`: the string searched.
        public let root: Root
        /// Mirrors `other`: the string searched for.
        public let other: Other

        /// Mirrors `init(root:other:)`.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Mirrors `evaluate(_:)`.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(try other.evaluate(bindings))
        }
    }

    /// Mirrors Foundation's `PredicateExpressions.StringCaseInsensitiveCompare`:
    /// `root.caseInsensitiveCompare(compared)` in `#Predicate`. Compared (`==`, `!=`) with a captured
    /// `ComparisonResult`, it becomes `==[c]`, `<[c]`, `>[c]` and their negations as an `NSPredicate`.
    public typealias StringCaseInsensitiveCompare<Root, Compared> = StringCompare<Root, Compared, CaseInsensitiveOrder>
    where Root: PredicateExpression, Compared: PredicateExpression, Root.Output: StringProtocol, Compared.Output: StringProtocol

    /// Mirrors Foundation's `PredicateExpressions.StringLocalizedCompare`: `root.localizedCompare(compared)`
    /// in `#Predicate`. It evaluates in Swift; a store cannot order by the current locale, so it has no
    /// `NSPredicate` form (`NSPredicate(_:)` returns `nil`, saying why).
    public typealias StringLocalizedCompare<Root, Compared> = StringCompare<Root, Compared, LocalizedOrder>
    where Root: PredicateExpression, Compared: PredicateExpression, Root.Output: StringProtocol, Compared.Output: StringProtocol

    /// The two string comparisons above (Apple's are two types; here one, told apart by `Order`).
    public struct StringCompare<Root: PredicateExpression, Compared: PredicateExpression, Order: StringOrder>: PredicateExpression
    where Root.Output: StringProtocol, Compared.Output: StringProtocol {
        /// Mirrors `Output`: the order of `root` and `compared`.
        public typealias Output = ComparisonResult
        /// Mirrors `root`.
        public let root: Root
        /// Mirrors `compared`.
        public let compared: Compared

        /// Mirrors `init(root:compared:)`.
        public init(root: Root, compared: Compared) {
            self.root = root
            self.compared = compared
        }

        /// Mirrors `evaluate(_:)`.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            Order.compare(String(try root.evaluate(bindings)), String(try compared.evaluate(bindings)))
        }
    }

    /// Mirrors `PredicateExpressions.build_localizedStandardContains(_:_:)`, what `#Predicate` expands
    /// `localizedStandardContains` to.
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other) -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }

    /// Mirrors `PredicateExpressions.build_caseInsensitiveCompare(_:_:)`.
    public static func build_caseInsensitiveCompare<Root, Compared>(_ root: Root, _ compared: Compared) -> StringCaseInsensitiveCompare<Root, Compared> {
        StringCaseInsensitiveCompare(root: root, compared: compared)
    }

    /// Mirrors `PredicateExpressions.build_localizedCompare(_:_:)`.
    public static func build_localizedCompare<Root, Compared>(_ root: Root, _ compared: Compared) -> StringLocalizedCompare<Root, Compared> {
        StringLocalizedCompare(root: root, compared: compared)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringCompare: Sendable where Root: Sendable, Compared: Sendable {}
extension PredicateExpressions.StringCompare: Codable where Root: Codable, Compared: Codable {}
extension PredicateExpressions.StringCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Compared: StandardPredicateExpression {}

/// How a `PredicateExpressions.StringCompare` orders two strings.
public protocol StringOrder {
    /// The order of `a` and `b`.
    static func compare(_ a: String, _ b: String) -> ComparisonResult
}

/// `caseInsensitiveCompare(_:)`'s order.
public enum CaseInsensitiveOrder: StringOrder {
    /// `a.caseInsensitiveCompare(b)`.
    public static func compare(_ a: String, _ b: String) -> ComparisonResult { a.caseInsensitiveCompare(b) }
}

/// `localizedCompare(_:)`'s order (the current locale).
public enum LocalizedOrder: StringOrder {
    /// `a.localizedCompare(b)`.
    public static func compare(_ a: String, _ b: String) -> ComparisonResult { a.localizedCompare(b) }
}

extension PredicateExpressions.StringLocalizedStandardContains: PredicateNodeConvertible {
    /// `root CONTAINS[cd] other`.
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        .comparison(ComparisonNode(try c.expression(root), .contains, try c.expression(other), options: [.caseInsensitive, .diacriticInsensitive]))
    }
}

extension PredicateExpressions.StringCompare: CaseInsensitiveComparing where Order == CaseInsensitiveOrder {
    func operands(_ c: inout PredicateConversion) throws -> (ExpressionNode, ExpressionNode) {
        (try c.expression(root), try c.expression(compared))
    }
}
#endif

/// `a.caseInsensitiveCompare(b)`, whose comparison with a `ComparisonResult` converts.
protocol CaseInsensitiveComparing {
    func operands(_ c: inout PredicateConversion) throws -> (ExpressionNode, ExpressionNode)
}

extension PredicateConversion {
    /// `a.caseInsensitiveCompare(b) == result` (or `!=`) as `a ==[c] b`, `a <[c] b`, `a >[c] b` or a
    /// negation; `nil` when the expressions are not such a comparison.
    mutating func caseInsensitiveComparison(_ lhs: Any, _ rhs: Any, equal: Bool) throws -> PredicateNode? {
        for (compare, constant) in [(lhs, rhs), (rhs, lhs)] {
            guard let compare = compare as? any CaseInsensitiveComparing,
                  let result = (constant as? PredicateExpressions.Value<ComparisonResult>)?.value else { continue }
            let (a, b) = try compare.operands(&self)
            let op: NSComparisonPredicate.Operator = switch result {
            case .orderedSame: equal ? .equalTo : .notEqualTo
            case .orderedAscending: equal ? .lessThan : .greaterThanOrEqualTo
            case .orderedDescending: equal ? .greaterThan : .lessThanOrEqualTo
            }
            return .comparison(ComparisonNode(a, op, b, options: .caseInsensitive))
        }
        return nil
    }
}

import Foundation

/// Mirrors Foundation's `NSComparisonPredicate`: `left op[options] right`, with an `ANY`/`ALL` modifier.
public class NSComparisonPredicate: NSPredicate, @unchecked Sendable {
    /// Mirrors `NSComparisonPredicate.Operator`, with Apple's raw values.
    public enum Operator: UInt, Sendable, Hashable, CaseIterable {
        case lessThan = 0
        case lessThanOrEqualTo = 1
        case greaterThan = 2
        case greaterThanOrEqualTo = 3
        case equalTo = 4
        case notEqualTo = 5
        case matches = 6
        case like = 7
        case beginsWith = 8
        case endsWith = 9
        case `in` = 10
        case customSelector = 11
        case contains = 99
        case between = 100
    }

    /// Mirrors `NSComparisonPredicate.Modifier`: direct, `ALL`, `ANY` (`SOME`).
    public enum Modifier: UInt, Sendable, Hashable, CaseIterable {
        case direct = 0
        case all = 1
        case any = 2
    }

    /// Mirrors `NSComparisonPredicate.Options`: `[c]`, `[d]`, `[n]`.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// `[c]`: Unicode case folding.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritics removed before comparing.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already normalized; compared as they are, without folding.
        public static let normalized = Options(rawValue: 4)
    }

    /// Mirrors `init(leftExpression:rightExpression:modifier:type:options:)`. `type` `.customSelector` traps,
    /// as Darwin raises for it: a custom selector comparison is made with
    /// ``init(leftExpression:rightExpression:customSelector:)``.
    public convenience init(
        leftExpression lhs: NSExpression, rightExpression rhs: NSExpression,
        modifier: Modifier, type: Operator, options: Options = []
    ) {
        precondition(type != .customSelector,
                     "Unknown predicate type 11: use NSComparisonPredicate(leftExpression:rightExpression:customSelector:)")
        self.init(lhs, rhs, ComparisonNode(lhs.node, type, rhs.node, modifier: modifier, options: options))
    }

    /// Mirrors `init(leftExpression:rightExpression:customSelector:)`: evaluating the predicate sends
    /// `selector` to the left expression's value with the right expression's value as its argument and takes
    /// the `Bool` it returns. Linux has no Objective-C dispatch, so the selector runs the implementation
    /// registered under its name in ``CustomSelectorRegistry`` (Foundation's common one-argument `Bool`
    /// methods are built in). `predicateFormat` is Darwin's `left selectorName: right`, which no format
    /// string parses (on Darwin neither); a fetch from a SQL store refuses the predicate.
    public convenience init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, customSelector selector: Selector) {
        self.init(lhs, rhs, ComparisonNode(lhs.node, .customSelector, rhs.node, selector: selector.name))
    }

    private convenience init(_ lhs: NSExpression, _ rhs: NSExpression, _ comparison: ComparisonNode) {
        self.init(node: .comparison(comparison))
        givenExpressions = (lhs, rhs)
        givenConstants = GivenConstants.combining([], [lhs.constantsForParent, rhs.constantsForParent])
    }

    package required init(node: PredicateNode) { super.init(node: node) }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): Apple's keys `NSLeftExpression`, `NSRightExpression` and
    /// `NSPredicateOperator` (an operator object with `NSOperatorType`, `NSModifier`, `NSOptions`). The
    /// predicate refuses evaluation until ``NSPredicate/allowEvaluation()``.
    public required init?(coder: NSCoder) {
        guard let node = PredicateCoding.decodeComparison(coder) else { return nil }
        super.init(node: node)
        archiveGate = EvaluationGate()
    }

    /// The expressions given to the initializer, returned as they are (so a constant keeps its object).
    private var givenExpressions: (left: NSExpression, right: NSExpression)?

    private var comparison: ComparisonNode {
        guard case .comparison(let c) = node else { preconditionFailure("not a comparison: \(node)") }
        return c
    }

    /// Mirrors `leftExpression`.
    public var leftExpression: NSExpression {
        givenExpressions?.left ?? NSExpression(node: comparison.left).inheriting(archiveGate?.part(0), givenConstants)
    }
    /// Mirrors `rightExpression`.
    public var rightExpression: NSExpression {
        givenExpressions?.right ?? NSExpression(node: comparison.right).inheriting(archiveGate?.part(1), givenConstants)
    }
    /// Mirrors `predicateOperatorType`.
    public var predicateOperatorType: Operator { comparison.op }
    /// Mirrors `comparisonPredicateModifier`.
    public var comparisonPredicateModifier: Modifier { comparison.modifier }
    /// Mirrors `options`.
    public var options: Options { comparison.options }
    /// Mirrors `customSelector`: the selector of a comparison made with
    /// ``init(leftExpression:rightExpression:customSelector:)`` (its `predicateOperatorType` is
    /// `.customSelector`), `nil` for other comparisons.
    public var customSelector: Selector? { comparison.selector.map { Selector($0) } }
}

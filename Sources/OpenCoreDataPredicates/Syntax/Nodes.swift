import Foundation

/// The predicate tree every pass works on. `NSPredicate` and its subclasses are thin public views of it.
package indirect enum PredicateNode: Hashable, Sendable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`, `NSPredicate(value:)`.
    case constant(Bool)
    case comparison(ComparisonNode)
    case and([PredicateNode])
    case or([PredicateNode])
    case not(PredicateNode)
    /// `NSPredicate(block:)`: a closure, evaluated in memory only (a SQL store refuses it).
    case block(PredicateBlock)
}

/// The closure of a block predicate, compared by identity (two block predicates are equal only when they
/// hold the same closure object, as two `NSBlockPredicate`s on Darwin are equal only when identical).
package final class PredicateBlock: Hashable, @unchecked Sendable {
    package let body: (Any?, [String: Any]?) -> Bool
    package init(_ body: @escaping (Any?, [String: Any]?) -> Bool) { self.body = body }
    package static func == (a: PredicateBlock, b: PredicateBlock) -> Bool { a === b }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// How Darwin prints a block predicate: `BLOCKPREDICATE(0x…)`, the address of the block.
    package var format: String {
        "BLOCKPREDICATE(0x" + String(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()), radix: 16) + ")"
    }
}

/// The set operations of `NSExpression` (`init(forUnionSet:with:)` …), written `UNION`, `INTERSECT`,
/// `MINUS` between two collection expressions in a format string.
package enum SetOperation: String, Hashable, Sendable, CaseIterable {
    case union = "UNION"
    case intersect = "INTERSECT"
    case minus = "MINUS"
}

/// `left op[options] right`, optionally quantified by `ANY`/`ALL` (`NONE` is `NOT ANY`). A custom
/// selector comparison (`op` `.customSelector`) names its selector: `left hasPrefix: right`.
package struct ComparisonNode: Hashable, Sendable {
    package var left: ExpressionNode
    package var right: ExpressionNode
    package var op: NSComparisonPredicate.Operator
    package var modifier: NSComparisonPredicate.Modifier
    package var options: NSComparisonPredicate.Options
    /// The selector's name (`"hasPrefix:"`) when `op` is `.customSelector`, otherwise `nil`.
    package var selector: String?

    package init(
        _ left: ExpressionNode, _ op: NSComparisonPredicate.Operator, _ right: ExpressionNode,
        modifier: NSComparisonPredicate.Modifier = .direct, options: NSComparisonPredicate.Options = [],
        selector: String? = nil
    ) {
        self.left = left
        self.right = right
        self.op = op
        self.modifier = modifier
        self.options = options
        self.selector = selector
    }
}

/// The expression tree (Apple's `NSExpression` kinds).
package indirect enum ExpressionNode: Hashable, Sendable {
    case constant(Value)
    /// `SELF`
    case evaluatedObject
    /// `$name`
    case variable(String)
    /// A key path on the evaluated object: `name`, `items.@sum.price`, `@count`.
    case keyPath(String)
    /// A key path on another expression's value: `$x.name`, `items[FIRST].name`.
    case member(ExpressionNode, String)
    /// A built-in function by Apple's selector-style name (`add:to:`, `sum:`, `now`, `objectFrom:withIndex:`,
    /// `castObject:toType:`, …), or `FUNCTION(receiver, 'selector', args…)` as `function("FUNCTION", …)`.
    case function(String, [ExpressionNode])
    /// `{a, b, c}`
    case aggregate([ExpressionNode])
    /// `SUBQUERY(collection, $variable, predicate)`
    case subquery(ExpressionNode, String, PredicateNode)
    /// `TERNARY(predicate, trueExpression, falseExpression)`
    case conditional(PredicateNode, ExpressionNode, ExpressionNode)
    /// `ANYKEY`
    case anyKey
    /// `FIRST`, `LAST`, `SIZE` inside an index: `array[LAST]`.
    case symbol(String)
    /// `left UNION right`, `left INTERSECT right`, `left MINUS right`: a set.
    case setOperation(SetOperation, ExpressionNode, ExpressionNode)
    /// `FETCH(request, context, countOnly)`: Core Data's `NSFetchRequestExpression`, the result of running
    /// the fetch request `request` evaluates to in the managed object context `context` evaluates to
    /// (see ``FetchExpressionRequest``).
    case fetch(ExpressionNode, ExpressionNode, countOnly: Bool)
}

extension PredicateNode {
    /// Replaces `$variables` with constants; variables not in `bindings` stay.
    package func substituting(_ bindings: [String: Value]) -> PredicateNode {
        switch self {
        case .constant, .block: return self
        case .comparison(var c):
            c.left = c.left.substituting(bindings)
            c.right = c.right.substituting(bindings)
            return .comparison(c)
        case .and(let ps): return .and(ps.map { $0.substituting(bindings) })
        case .or(let ps): return .or(ps.map { $0.substituting(bindings) })
        case .not(let p): return .not(p.substituting(bindings))
        }
    }
}

extension ExpressionNode {
    package func substituting(_ bindings: [String: Value]) -> ExpressionNode {
        switch self {
        case .constant, .evaluatedObject, .keyPath, .anyKey, .symbol: return self
        case .variable(let name): return bindings[name].map { .constant($0) } ?? self
        case .member(let base, let key): return .member(base.substituting(bindings), key)
        case .function(let name, let args): return .function(name, args.map { $0.substituting(bindings) })
        case .aggregate(let items): return .aggregate(items.map { $0.substituting(bindings) })
        case .subquery(let collection, let variable, let predicate):
            // The iterator variable is bound by the subquery itself.
            var inner = bindings
            inner[variable] = nil
            return .subquery(collection.substituting(bindings), variable, predicate.substituting(inner))
        case .conditional(let p, let t, let f):
            return .conditional(p.substituting(bindings), t.substituting(bindings), f.substituting(bindings))
        case .setOperation(let op, let l, let r):
            return .setOperation(op, l.substituting(bindings), r.substituting(bindings))
        case .fetch(let request, let context, let countOnly):
            return .fetch(request.substituting(bindings), context.substituting(bindings), countOnly: countOnly)
        }
    }
}

import Foundation
import OpenCoreDataPredicates

// Each of Foundation's predicate expressions, as the predicate tree says it (the format-string form in the
// comment).

extension PredicateExpressions.Value: ExpressionNodeConvertible {
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        .constant(OpenCoreDataPredicates.Value(any: c.constants(value)))
    }
}

extension PredicateExpressions.NilLiteral: ExpressionNodeConvertible {
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode { .constant(.null) }
}

extension PredicateExpressions.Variable: ExpressionNodeConvertible {
    /// `SELF`, a `SUBQUERY` variable, or what a `flatMap` unwrapped.
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        if key == c.input { return .evaluatedObject }
        guard let bound = c.bound[key] else { throw c.unsupported(self) }
        return bound
    }
}

extension PredicateExpressions.KeyPath: ExpressionNodeConvertible {
    /// `a.b.c`; `collection.@count`; `length:(string)`.
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        let base = try c.expression(root)
        if let counted = Root.Output.self as? any CountKeyPathRoot.Type, counted.countKeyPath == keyPath {
            return counted.isString ? .function("length:", [base]) : Self.member(base, "@count")
        }
        do { return Self.member(base, try c.keys(keyPath)) } catch {
            throw PredicateConversion.Unsupported(description: "\(error)")
        }
    }

    private static func member(_ base: ExpressionNode, _ key: String) -> ExpressionNode {
        switch base {
        case .evaluatedObject: return .keyPath(key)
        case .keyPath(let path): return .keyPath(path + "." + key)
        default: return .member(base, key)
        }
    }
}

/// Collections whose `count` is `@count` (strings: `length:`).
protocol CountKeyPathRoot {
    static var countKeyPath: AnyKeyPath { get }
    static var isString: Bool { get }
}
extension CountKeyPathRoot { static var isString: Bool { false } }
extension Set: CountKeyPathRoot { static var countKeyPath: AnyKeyPath { \Set<Element>.count } }
extension Array: CountKeyPathRoot { static var countKeyPath: AnyKeyPath { \Array<Element>.count } }
extension String: CountKeyPathRoot {
    static var countKeyPath: AnyKeyPath { \String.count }
    static var isString: Bool { true }
}

extension PredicateExpressions.Equal: PredicateNodeConvertible {
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        if let compared = try c.booleanComparison(lhs, rhs) { return compared }
        if let compared = try c.caseInsensitiveComparison(lhs, rhs, equal: true) { return compared }
        return .comparison(ComparisonNode(try c.expression(lhs), .equalTo, try c.expression(rhs)))
    }
}

extension PredicateExpressions.NotEqual: PredicateNodeConvertible {
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        if let compared = try c.booleanComparison(lhs, rhs) { return .not(compared) }
        if let compared = try c.caseInsensitiveComparison(lhs, rhs, equal: false) { return compared }
        return .comparison(ComparisonNode(try c.expression(lhs), .notEqualTo, try c.expression(rhs)))
    }
}

extension PredicateExpressions.Comparison: PredicateNodeConvertible {
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        let op: NSComparisonPredicate.Operator = switch self.op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqualTo
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqualTo
        }
        return .comparison(ComparisonNode(try c.expression(lhs), op, try c.expression(rhs)))
    }
}

extension PredicateExpressions.Conjunction: PredicateNodeConvertible {
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode { .and([try c.predicate(lhs), try c.predicate(rhs)]) }
}

extension PredicateExpressions.Disjunction: PredicateNodeConvertible {
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode { .or([try c.predicate(lhs), try c.predicate(rhs)]) }
}

extension PredicateExpressions.Negation: PredicateNodeConvertible {
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode { .not(try c.predicate(wrapped)) }
}

extension PredicateExpressions.Conditional: ExpressionNodeConvertible, PredicateNodeConvertible {
    /// `TERNARY(test, a, b)`.
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        .conditional(try c.predicate(test), try c.expression(trueBranch), try c.expression(falseBranch))
    }

    /// `(test AND a) OR (NOT test AND b)`.
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        let test = try c.predicate(self.test)
        return .or([.and([test, try c.predicate(trueBranch)]), .and([.not(test), try c.predicate(falseBranch)])])
    }
}

extension PredicateExpressions.NilCoalesce: ExpressionNodeConvertible, PredicateNodeConvertible {
    /// `TERNARY(a != nil, a, b)`.
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        let value = try c.expression(lhs)
        return .conditional(.comparison(ComparisonNode(value, .notEqualTo, .constant(.null))), value, try c.expression(rhs))
    }

    /// A Boolean `a ?? b`: `(a is set AND a) OR (a is not set AND b)`.
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        let (isSet, test) = try c.optionalBoolean(lhs)
        return .or([.and([isSet, test]), .and([.not(isSet), try c.predicate(rhs)])])
    }
}

extension PredicateExpressions.OptionalFlatMap: ExpressionNodeConvertible, PredicateNodeConvertible, OptionalBooleanConvertible {
    /// The transform with its variable standing for the wrapped value (`$0.classification.flatMap { $0.order }`
    /// is `classification.order`; nil stays nil, as a key path through a missing to-one reads nil).
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        c.bound[variable.key] = try c.expression(wrapped)
        return try c.expression(transform)
    }

    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        c.bound[variable.key] = try c.expression(wrapped)
        return try c.predicate(transform)
    }

    /// Set when the wrapped value is; then the transform.
    func optionalBoolean(_ c: inout PredicateConversion) throws -> (isSet: PredicateNode, test: PredicateNode) {
        let value = try c.expression(wrapped)
        c.bound[variable.key] = value
        return (.comparison(ComparisonNode(value, .notEqualTo, .constant(.null))), try c.predicate(transform))
    }
}

extension PredicateExpressions.ForcedUnwrap: ExpressionNodeConvertible {
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode { try c.expression(inner) }
}

extension PredicateExpressions.Arithmetic: ExpressionNodeConvertible {
    /// `add:to:`, `from:subtract:`, `multiply:by:`.
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        let (l, r) = (try c.expression(lhs), try c.expression(rhs))
        switch op {
        case .add: return .function("add:to:", [l, r])
        case .subtract: return .function("from:subtract:", [l, r])
        case .multiply: return .function("multiply:by:", [l, r])
        }
    }
}

extension PredicateExpressions.UnaryMinus: ExpressionNodeConvertible {
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        .function("multiply:by:", [try c.expression(wrapped), .constant(.int(-1))])
    }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateNodeConvertible {
    /// `string CONTAINS other`.
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        .comparison(ComparisonNode(try c.expression(base), .contains, try c.expression(other)))
    }
}

extension PredicateExpressions.SequenceStartsWith: PredicateNodeConvertible {
    /// `string BEGINSWITH prefix`.
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        .comparison(ComparisonNode(try c.expression(base), .beginsWith, try c.expression(prefix)))
    }
}

extension PredicateExpressions.SequenceContains: PredicateNodeConvertible {
    /// `element IN sequence`.
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        .comparison(ComparisonNode(try c.expression(element), .in, try c.expression(sequence)))
    }
}

extension PredicateExpressions.SequenceContainsWhere: PredicateNodeConvertible {
    /// `SUBQUERY(sequence, $v, test).@count > 0`.
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        let collection = try c.expression(sequence)
        let name = c.bindSubqueryVariable(variable.key)
        let subquery = ExpressionNode.subquery(collection, name, try c.predicate(test))
        return .comparison(ComparisonNode(.member(subquery, "@count"), .greaterThan, .constant(.int(0))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: PredicateNodeConvertible {
    /// `SUBQUERY(sequence, $v, NOT test).@count == 0`.
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode {
        let collection = try c.expression(sequence)
        let name = c.bindSubqueryVariable(variable.key)
        let subquery = ExpressionNode.subquery(collection, name, .not(try c.predicate(test)))
        return .comparison(ComparisonNode(.member(subquery, "@count"), .equalTo, .constant(.int(0))))
    }
}

extension PredicateExpressions.Filter: ExpressionNodeConvertible {
    /// `SUBQUERY(sequence, $v, filter)`.
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode {
        let collection = try c.expression(sequence)
        let name = c.bindSubqueryVariable(variable.key)
        return .subquery(collection, name, try c.predicate(filter))
    }
}

/// An optional Boolean made of a predicate (`name.flatMap { $0.contains("x") }`): whether it is set, and
/// the predicate when it is.
protocol OptionalBooleanConvertible {
    func optionalBoolean(_ c: inout PredicateConversion) throws -> (isSet: PredicateNode, test: PredicateNode)
}

extension PredicateConversion {
    /// An optional Boolean's parts: a `flatMap` to a predicate, or a value (set when not nil, true when YES).
    mutating func optionalBoolean(_ expression: Any) throws -> (isSet: PredicateNode, test: PredicateNode) {
        if let optional = expression as? any OptionalBooleanConvertible { return try optional.optionalBoolean(&self) }
        if let convertible = expression as? any PredicateNodeConvertible { return (.constant(true), try convertible.predicateNode(&self)) }
        let value = try self.expression(expression)
        return (.comparison(ComparisonNode(value, .notEqualTo, .constant(.null))), .comparison(ComparisonNode(value, .equalTo, .constant(.bool(true)))))
    }

    /// `a == true` / `a == false` where `a` is a predicate (or an optional one): the predicate, its negation
    /// (when set), or `nil` when neither side is a Boolean constant beside a predicate.
    mutating func booleanComparison(_ lhs: Any, _ rhs: Any) throws -> PredicateNode? {
        for (test, constant) in [(lhs, rhs), (rhs, lhs)] {
            guard test is any PredicateNodeConvertible || test is any OptionalBooleanConvertible,
                  let flag = Self.booleanConstant(constant) else { continue }
            let (isSet, predicate) = try optionalBoolean(test)
            return .and([isSet, flag ? predicate : .not(predicate)])
        }
        return nil
    }

    private static func booleanConstant(_ expression: Any) -> Bool? {
        guard let value = expression as? any BooleanValueExpression else { return nil }
        return value.boolean
    }
}

/// A `Value` holding `true` or `false` (optional or not).
protocol BooleanValueExpression {
    var boolean: Bool? { get }
}

extension PredicateExpressions.Value: BooleanValueExpression {
    var boolean: Bool? {
        if let flag = value as? Bool { return flag }
        if let flag = value as? Bool? { return flag }
        return nil
    }
}

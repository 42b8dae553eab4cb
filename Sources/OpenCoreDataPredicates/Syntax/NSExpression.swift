import Foundation

/// Mirrors Foundation's `NSExpression`: one side of a comparison — a constant, `SELF`, a key path, a
/// `$VARIABLE`, a function, an aggregate `{…}`, a subquery, a conditional or `ANYKEY`.
///
/// Differences from Darwin: `$x.name` and `array[FIRST].name` are key-path expressions whose
/// ``operand`` is the base expression; array indexes are the function `objectFrom:withIndex:` as on Darwin,
/// with `FIRST`/`LAST`/`SIZE` as constant strings. Block expressions are not provided.
/// A constant made by ``init(forConstantValue:)`` keeps the object given (``constantValue`` returns it);
/// one parsed from a format string's `%@` is an equal value, not the argument object.
///
/// `open`, as Foundation's is: Core Data's `NSFetchRequestExpression` subclasses it.
open class NSExpression: NSObject, @unchecked Sendable {
    /// Mirrors `NSExpression.ExpressionType`, with Apple's raw values.
    public enum ExpressionType: UInt, Sendable, Hashable {
        case constantValue = 0
        case evaluatedObject = 1
        case variable = 2
        case keyPath = 3
        case function = 4
        case unionSet = 5
        case intersectSet = 6
        case minusSet = 7
        case subquery = 13
        case aggregate = 14
        case anyKey = 15
        case block = 19
        case conditional = 20
        /// Not a Foundation case: the value of Core Data's `NSFetchRequestExpressionType` (50), which
        /// Darwin's imported enum holds without a name of its own. Use that constant.
        case fetchRequest = 50
    }

    package let node: ExpressionNode
    /// The object given to ``init(forConstantValue:)``, returned as it is by ``constantValue``.
    private let givenConstant: Any?
    /// Set when the expression was decoded from an archive (or belongs to a decoded predicate): closed
    /// until ``allowEvaluation()``.
    package var archiveGate: EvaluationGate?
    /// The objects the constants inside it were made from (`GivenConstants`).
    package var givenConstants: GivenConstants?

    /// Mirrors `init(coder:)` (`NSSecureCoding`): the expression kind from `NSExpressionType` and Apple's
    /// keys for it (see `Archiving/PredicateCoding.swift`). It refuses evaluation until
    /// ``allowEvaluation()``.
    public required init?(coder: NSCoder) {
        guard let node = PredicateCoding.decodeExpression(coder) else { return nil }
        self.node = node
        self.givenConstant = nil
        self.archiveGate = EvaluationGate()
        super.init()
    }

    /// Mirrors `encode(with:)` (`NSCoding`), with Apple's keys.
    public func encode(with coder: NSCoder) {
        PredicateCoding.encode(self, with: coder)
    }

    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`): `true`.
    public class var supportsSecureCoding: Bool { true }

    /// Mirrors `allowEvaluation()`: lets an expression decoded from an archive be evaluated
    /// (``expressionValue(with:context:)`` returns `nil` until then), with every part reached from it.
    public func allowEvaluation() { archiveGate?.open() }

    /// This expression as a part of a larger one: with the part's archive permission `gate` and the
    /// objects the whole's constants were made from.
    package func inheriting(_ gate: EvaluationGate?, _ constants: GivenConstants?) -> NSExpression {
        archiveGate = gate
        givenConstants = constants
        return self
    }

    /// The part of this expression at `position`, with that part's archive permission.
    private func part(_ node: ExpressionNode, at position: PartPosition) -> NSExpression {
        NSExpression(node: node).inheriting(archiveGate?.part(position.rawValue), givenConstants)
    }

    /// What a predicate or expression made from this one keeps of its given objects.
    package var constantsForParent: GivenConstants? {
        guard let givenConstant, case .constant(let value) = node,
              let own = GivenConstants.entry(for: givenConstant, value: value) else { return givenConstants }
        return GivenConstants.combining([own], [givenConstants])
    }

    /// The given objects of expressions and values passed as arguments (values become constants).
    private static func constants(of parts: [Any]) -> GivenConstants? {
        GivenConstants.combining([], parts.map { part in
            if let expression = part as? NSExpression { return expression.constantsForParent }
            return GivenConstants.combining(GivenConstants.entry(for: part, value: Value(any: part)).map { [$0] } ?? [])
        })
    }

    /// Where a part sits in an expression, for its archive permission (arguments and the items of an
    /// aggregate follow `items`).
    private struct PartPosition {
        let rawValue: Int
        static let operand = PartPosition(rawValue: 0), left = PartPosition(rawValue: 1)
        static let right = PartPosition(rawValue: 2), collection = PartPosition(rawValue: 3)
        static let predicate = PartPosition(rawValue: 4), trueBranch = PartPosition(rawValue: 5)
        static let falseBranch = PartPosition(rawValue: 6)
        static func item(_ index: Int) -> PartPosition { PartPosition(rawValue: 7 + index) }
    }

    package init(node: ExpressionNode) {
        self.node = node
        self.givenConstant = nil
        super.init()
    }

    private init(node: ExpressionNode, givenConstant: Any?) {
        self.node = node
        self.givenConstant = givenConstant
        super.init()
    }

    /// Mirrors `NSExpression(format:_:)`. Traps on a malformed format.
    public convenience init(format expressionFormat: String, _ args: Any?...) {
        self.init(format: expressionFormat, argumentArray: args.map { $0 as Any })
    }

    /// Mirrors `NSExpression(format:argumentArray:)`. Traps on a malformed format; arguments the format does
    /// not use are ignored, as on Darwin.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        do {
            let parsed = try PredicateParser.parseExpression(expressionFormat, arguments: arguments, allowsUnusedArguments: true)
            self.init(node: parsed.node)
            givenConstants = parsed.given
        } catch {
            fatalError("\(error)")
        }
    }

    /// The throwing form of `NSExpression(format:argumentArray:)`. Not in Core Data. An argument the format
    /// does not use is an error, as in `NSPredicate(validatingFormat:)`.
    public convenience init(validatingFormat expressionFormat: String, argumentArray arguments: [Any] = []) throws {
        let parsed = try PredicateParser.parseExpression(expressionFormat, arguments: arguments)
        self.init(node: parsed.node)
        givenConstants = parsed.given
    }

    /// Mirrors `NSExpression(forConstantValue:)`. ``constantValue`` returns `obj` itself, as on Darwin.
    public convenience init(forConstantValue obj: Any?) {
        self.init(node: .constant(Value(any: obj)), givenConstant: obj.flatMap(flattenOptional))
    }

    /// Mirrors `NSExpression(forKeyPath:)` (the string form).
    public convenience init(forKeyPath keyPath: String) {
        self.init(node: .keyPath(keyPath))
    }

    /// Mirrors `NSExpression(forVariable:)`.
    public convenience init(forVariable string: String) {
        self.init(node: .variable(string))
    }

    /// Mirrors `NSExpression(forFunction:arguments:)` with Apple's function names (`sum:`, `add:to:`, `now`, …,
    /// the list in `BuiltinFunctions`). Arguments are `NSExpression`s; other values are taken as constants.
    ///
    /// A name Apple does not define, or the wrong number of arguments, traps here, as Darwin raises at
    /// once for an unknown name; ``init(validatingFunction:arguments:)`` throws instead.
    /// `distanceToLocation:fromLocation:` needs Core Location, which Linux does not have: it is refused too.
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        do {
            try self.init(validatingFunction: name, arguments: parameters)
        } catch {
            fatalError("\(error)")
        }
    }

    /// The throwing form of ``init(forFunction:arguments:)``: a ``FunctionNameError`` for a name Apple's
    /// `NSExpression` does not define or the wrong number of arguments. Not in Core Data.
    public convenience init(validatingFunction name: String, arguments parameters: [Any]) throws {
        try BuiltinFunctions.check(name, argumentCount: parameters.count)
        self.init(node: .function(name, parameters.map(NSExpression.node(of:))))
        givenConstants = NSExpression.constants(of: parameters)
    }

    /// Mirrors `NSExpression(forUnionSet:with:)`: the elements of either collection, as a set.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.union, left.node, right.node))
        givenConstants = NSExpression.constants(of: [left, right])
    }

    /// Mirrors `NSExpression(forIntersectSet:with:)`: the elements of `left` that `right` also has, as a set.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.intersect, left.node, right.node))
        givenConstants = NSExpression.constants(of: [left, right])
    }

    /// Mirrors `NSExpression(forMinusSet:with:)`: the elements of `left` that `right` does not have, as a set.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.minus, left.node, right.node))
        givenConstants = NSExpression.constants(of: [left, right])
    }

    /// Mirrors `NSExpression(forAggregate:)`.
    public convenience init(forAggregate subexpressions: [Any]) {
        self.init(node: .aggregate(subexpressions.map(NSExpression.node(of:))))
        givenConstants = NSExpression.constants(of: subexpressions)
    }

    /// Mirrors `NSExpression(forSubquery:usingIteratorVariable:predicate:)`.
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: NSPredicate) {
        self.init(node: .subquery(expression.node, variable, predicate.node))
        givenConstants = GivenConstants.combining([], [expression.constantsForParent, predicate.givenConstants])
    }

    /// Mirrors `NSExpression(forConditional:trueExpression:falseExpression:)` (`TERNARY`).
    public convenience init(forConditional predicate: NSPredicate, trueExpression: NSExpression, falseExpression: NSExpression) {
        self.init(node: .conditional(predicate.node, trueExpression.node, falseExpression.node))
        givenConstants = GivenConstants.combining([], [predicate.givenConstants, trueExpression.constantsForParent,
                                                       falseExpression.constantsForParent])
    }

    /// Mirrors `NSExpression.expressionForEvaluatedObject()` (`SELF`).
    public class func expressionForEvaluatedObject() -> NSExpression { NSExpression(node: .evaluatedObject) }

    /// Mirrors `NSExpression.expressionForAnyKey()` (`ANYKEY`).
    public class func expressionForAnyKey() -> NSExpression { NSExpression(node: .anyKey) }

    private static func node(of any: Any) -> ExpressionNode {
        (any as? NSExpression)?.node ?? .constant(Value(any: any))
    }

    /// Mirrors `expressionType`.
    public var expressionType: ExpressionType {
        switch node {
        case .constant, .symbol: return .constantValue
        case .evaluatedObject: return .evaluatedObject
        case .variable: return .variable
        case .keyPath, .member: return .keyPath
        case .function: return .function
        case .aggregate: return .aggregate
        case .subquery: return .subquery
        case .conditional: return .conditional
        case .anyKey: return .anyKey
        case .setOperation(.union, _, _): return .unionSet
        case .setOperation(.intersect, _, _): return .intersectSet
        case .setOperation(.minus, _, _): return .minusSet
        case .fetch: return .fetchRequest
        }
    }

    /// Mirrors `leftExpression`: the left side of a set expression (`UNION`, `INTERSECT`, `MINUS`).
    public var leftExpression: NSExpression {
        if case .setOperation(_, let l, _) = node { return part(l, at: .left) }
        preconditionFailure("leftExpression is defined for set expressions, not for \(description)")
    }

    /// Mirrors `rightExpression`: the right side of a set expression.
    public var rightExpression: NSExpression {
        if case .setOperation(_, _, let r) = node { return part(r, at: .right) }
        preconditionFailure("rightExpression is defined for set expressions, not for \(description)")
    }

    /// Mirrors `constantValue`: the object given — to ``init(forConstantValue:)``, as a `%@` argument, as a
    /// substitution variable — itself, wherever the expression sits in a predicate (see `GivenConstants`);
    /// for a literal of a format string, its value (numbers as `NSNumber`, as on Darwin).
    public var constantValue: Any? {
        if let givenConstant { return givenConstant }
        switch node {
        case .constant(let v): return givenConstants?.object(for: v) ?? v.anyValue
        case .symbol(let s): return s
        default: return nil
        }
    }

    /// Mirrors `keyPath`.
    public var keyPath: String {
        switch node {
        case .keyPath(let k), .member(_, let k): return k
        default: return ""
        }
    }

    /// Mirrors `variable`.
    public var variable: String {
        switch node {
        case .variable(let v), .subquery(_, let v, _): return v
        default: return ""
        }
    }

    /// Mirrors `function`.
    public var function: String {
        if case .function(let name, _) = node { return name }
        return ""
    }

    /// Mirrors `arguments`.
    public var arguments: [NSExpression]? {
        if case .function(let name, let args) = node {
            return (name == "FUNCTION" ? Array(args.dropFirst(2)) : args).enumerated().map {
                part($1, at: .item($0))
            }
        }
        return nil
    }

    /// Mirrors `operand`: `SELF` for a key path, the base of `$x.name`, the receiver of `FUNCTION(…)`.
    public var operand: NSExpression {
        switch node {
        case .member(let base, _): return part(base, at: .operand)
        case .function("FUNCTION", let args) where !args.isEmpty: return part(args[0], at: .operand)
        default: return NSExpression(node: .evaluatedObject)
        }
    }

    /// Mirrors `collection`: the subexpressions of an aggregate, or the collection of a subquery.
    public var collection: Any {
        switch node {
        case .aggregate(let items):
            return items.enumerated().map { part($1, at: .item($0)) }
        case .subquery(let c, _, _): return part(c, at: .collection)
        default: return [NSExpression]()
        }
    }

    /// Mirrors `predicate` of a subquery or conditional expression.
    public var predicate: NSPredicate {
        switch node {
        case .subquery(_, _, let p), .conditional(let p, _, _):
            let view = NSPredicate.wrap(p)
            view.archiveGate = archiveGate?.part(PartPosition.predicate.rawValue)
            view.givenConstants = givenConstants
            return view
        default: return NSPredicate(value: true)
        }
    }

    /// Mirrors `trueExpression`.
    public var trueExpression: NSExpression {
        if case .conditional(_, let t, _) = node { return part(t, at: .trueBranch) }
        return self
    }

    /// Mirrors `falseExpression`.
    public var falseExpression: NSExpression {
        if case .conditional(_, _, let f) = node { return part(f, at: .falseBranch) }
        return self
    }

    /// Mirrors `expressionValue(with:context:)`: evaluates the expression against `object`. The context's
    /// entries are used as variable bindings. Returns `nil` where evaluation fails (Darwin raises).
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        if let archiveGate, !archiveGate.isOpen { return nil }
        var bindings: [String: Value] = [:]
        for (key, value) in context ?? [:] {
            if let key = key as? String { bindings[key] = Value(any: value) }
        }
        var evaluator = Evaluator(bindings: bindings)
        return try? evaluator.value(node, object).anyValue
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? NSExpression)?.node == node
    }

    public override var hash: Int { node.hashValue }

    /// The expression's canonical format, as Darwin prints it.
    public override var description: String { PredicatePrinter.format(node) }
}

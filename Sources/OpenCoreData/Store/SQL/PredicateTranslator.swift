import Foundation

/// Translates a predicate into a dialect-neutral ``SQLExpression`` on the fetched entity's table
/// (``SQLGenerationContext/rootAlias``), keeping in-memory semantics exactly:
///
/// - two-valued logic: a comparison with `NULL` is false, and `NOT p` is ``SQLExpression/not(_:)`` (true
///   when `p` is false or `NULL`), so that `NOT (price < 5)` is true for a `nil` price, as in memory;
/// - `==`/`!=` are null-safe (``SQLExpression/isNotDistinct(_:_:)``) where both sides may be `NULL`;
/// - `[c]`/`[d]` and the string operators become ``SQLFunction`` calls that run the same Swift code as
///   in-memory evaluation;
/// - values of different kinds (a string and a number) never compare: the comparison is the constant it
///   is in memory (`==` false, `!=` true);
/// - a comparison of constants is decided by the evaluator itself, and constant subexpressions are
///   evaluated in Swift and bound.
///
/// Key paths through to-one relationships join the destination tables outer (one alias per distinct
/// path); to-many relationships become correlated subqueries — `EXISTS` for `ANY`/`ALL`/`NONE` and
/// `IN`/`CONTAINS` over a to-many, scalar subqueries for `@count`, the aggregates and
/// `SUBQUERY(…).@count` (`PredicateTranslator+Relationships.swift`). Managed objects and object IDs
/// compare as keys. The operands (key paths, constants, functions) are in
/// `PredicateTranslator+Operands.swift`, key paths and scopes in `PredicateTranslator+KeyPaths.swift`.
struct PredicateTranslator {
    let layout: EntityLayout
    let entityName: String
    /// The aliases handed out so far, the joins (and, once printed, the bound values).
    var context: SQLGenerationContext
    /// The rows key paths are read from: the fetched entity's, then those of open subqueries.
    var scopes: [Scope]
    /// The predicate's key paths, as the plan resolved them.
    var keyPaths: PredicateKeyPaths
    /// While translating a `havingPredicate`: the columns its names stand for (see
    /// `PredicateTranslator+Groups.swift`); `nil` otherwise.
    var groupColumns: [String: DictionaryColumns.Column]? = nil
    /// The tag of the store the statement reads (``ObjectKey/tag(_:)``): an object constant of another
    /// store names none of its rows.
    var storeTag = 0

    init(layout: EntityLayout, entityName: String, context: SQLGenerationContext = SQLGenerationContext(),
         keyPaths: PredicateKeyPaths = PredicateKeyPaths()) {
        self.layout = layout
        self.entityName = entityName
        self.context = context
        self.scopes = [.root(layout, entityName)]
        self.keyPaths = keyPaths
    }

    /// A translator for the plan's entity that reads the key paths the plan resolved.
    init(_ plan: FetchPlan) {
        self.init(layout: plan.layout, entityName: plan.entity.name ?? "", keyPaths: plan.keyPaths)
        storeTag = ObjectKey.tag(plan.keyRoot)
    }

    /// The condition a row must meet to match `node`.
    mutating func condition(_ node: PredicateNode) throws -> SQLExpression {
        switch node {
        case .constant(let b): return .literal(b)
        case .and(let parts):
            guard !parts.isEmpty else { return .literal(true) }
            return .and(try parts.map { try condition($0) })
        case .or(let parts):
            guard !parts.isEmpty else { return .literal(false) }
            return .or(try parts.map { try condition($0) })
        case .not(let inner):
            return .not(try condition(inner))
        case .comparison(let c):
            try refuseCustomSelector(c)
            if let expanded = try Self.expandingSetOperations(c) { return try condition(expanded) }
            return try comparison(c)
        case .block(let block):
            throw CoreDataError(NSCoreDataError, "unimplemented SQL generation for predicate : (\(block.format))")
        }
    }

    /// A comparison whose collection side is a set expression that depends on the row, rewritten as
    /// memberships of its sides, which SQL can test: `x IN a UNION b` is `x IN a OR x IN b`,
    /// `x IN a INTERSECT b` is `x IN a AND x IN b`, `x IN a MINUS b` is `x IN a AND NOT x IN b` (the
    /// in-memory evaluator makes the sets with the same equality, so the answers agree); `ANY`/`ALL` over
    /// a `UNION` is `ANY a … OR ANY b …` / `ALL a … AND ALL b …`. `nil` when there is nothing to rewrite
    /// (a set expression of constants is computed in Swift and bound). Other uses throw.
    static func expandingSetOperations(_ c: ComparisonNode) throws -> PredicateNode? {
        func isConstant(_ node: ExpressionNode) -> Bool {
            switch node {
            case .constant: return true
            case .aggregate(let items): return items.allSatisfy(isConstant)
            case .setOperation(_, let l, let r): return isConstant(l) && isConstant(r)
            default: return false
            }
        }
        func fail(_ op: SetOperation) -> CoreDataError {
            CoreDataError(NSCoreDataError, "unsupported in SQL: \(op.rawValue) of values of the row in \(PredicatePrinter.format(PredicateNode.comparison(c))); a set expression is translated as the collection of IN or CONTAINS (INTERSECT and MINUS without [cd] options), or of ANY/ALL for UNION")
        }
        func with(_ side: ExpressionNode, onLeft: Bool) -> PredicateNode {
            var copy = c
            if onLeft { copy.left = side } else { copy.right = side }
            return .comparison(copy)
        }
        let setOnLeft: Bool
        let set: (SetOperation, ExpressionNode, ExpressionNode)
        if case .setOperation(let op, let l, let r) = c.left, !isConstant(c.left) {
            setOnLeft = true
            set = (op, l, r)
        } else if case .setOperation(let op, let l, let r) = c.right, !isConstant(c.right) {
            setOnLeft = false
            set = (op, l, r)
        } else {
            return nil
        }
        let (op, l, r) = set
        let isCollectionSide = c.modifier != .direct ? setOnLeft
            : (c.op == .in && !setOnLeft) || (c.op == .contains && setOnLeft)
        guard isCollectionSide else { throw fail(op) }
        let a = with(l, onLeft: setOnLeft), b = with(r, onLeft: setOnLeft)
        if c.modifier != .direct {
            guard op == .union else { throw fail(op) }
            // `ANY {constants} op constant` is decided here, by the evaluator (SQL has no such collection).
            func decided(_ part: PredicateNode) throws -> PredicateNode {
                guard case .comparison(let q) = part, isConstant(q.left), isConstant(q.right) else { return part }
                var evaluator = Evaluator()
                return .constant(try evaluator.evaluate(part, with: nil))
            }
            let pieces = [try decided(a), try decided(b)]
            return c.modifier == .any ? .or(pieces) : .and(pieces)
        }
        switch op {
        case .union: return .or([a, b])
        case .intersect where c.options.isEmpty: return .and([a, b])
        case .minus where c.options.isEmpty: return .and([a, .not(b)])
        default: throw fail(op)
        }
    }

    func unsupported(_ what: String) -> CoreDataError {
        CoreDataError(NSCoreDataError, "unsupported in a fetch of entity \(entityName): \(what)")
    }

    /// A custom selector runs Swift code (``CustomSelectorRegistry``), which SQL cannot.
    func refuseCustomSelector(_ c: ComparisonNode) throws {
        guard c.op == .customSelector else { return }
        throw unsupported("the custom selector \(c.selector ?? "(none)") in \(PredicatePrinter.format(PredicateNode.comparison(c))) (custom selector comparisons are evaluated in memory only: fetch without it and filter the objects with it)")
    }

    mutating func comparison(_ c: ComparisonNode) throws -> SQLExpression {
        try refuseCustomSelector(c)
        guard c.modifier == .direct else { return try quantified(c) }
        let options = c.options.contains(.normalized) ? [] : c.options.intersection([.caseInsensitive, .diacriticInsensitive])
        // A comparison of constants is decided here, by the evaluator itself.
        if let l = try? constantValue(c.left), let r = try? constantValue(c.right) {
            return .literal(try ValueComparison.evaluate(l, c.op, r, c.options))
        }
        switch c.op {
        case .in:
            if let collection = try collectionPath(c.right) { return try contains(collection, c.left, options: c.options) }
            return try membership(element: c.left, collection: c.right, options: options)
        case .contains:
            if let collection = try collectionPath(c.left) { return try contains(collection, c.right, options: c.options) }
            if case .aggregate = c.left { return try membership(element: c.right, collection: c.left, options: options) }
            if let v = try? constantValue(c.left), v.collectionElements != nil {
                return try membership(element: c.right, collection: c.left, options: options)
            }
            return try stringTest(.contains(options), c.left, c.right)
        case .beginsWith: return try stringTest(.beginsWith(options), c.left, c.right)
        case .endsWith: return try stringTest(.endsWith(options), c.left, c.right)
        case .like: return try stringTest(.like(options), c.left, c.right)
        case .matches: return try stringTest(.matches(options), c.left, c.right)
        case .between:
            let bounds: [ExpressionNode]
            switch c.right {
            case .aggregate(let items) where items.count == 2: bounds = items
            case .constant(let v) where v.collectionElements?.count == 2: bounds = v.collectionElements!.map { .constant($0) }
            default: throw unsupported("BETWEEN needs two bounds")
            }
            let lower = try ordered(c.left, .greaterThanOrEqual, bounds[0], options)
            let upper = try ordered(c.left, .lessThanOrEqual, bounds[1], options)
            // Either half false: the whole is false (and binds nothing).
            if lower == .literal(false) || upper == .literal(false) { return .literal(false) }
            return .and([lower, upper])
        case .equalTo, .notEqualTo:
            return try equality(c.left, c.right, negated: c.op == .notEqualTo, options)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return try ordered(c.left, SQLComparisonOperator(ordering: c.op)!, c.right, options)
        case .customSelector:
            throw unsupported("custom selector comparisons")
        }
    }

    /// Whether values of these kinds can compare (`nil`: the `NULL` constant, which compares with all).
    static func compatible(_ a: ValueKind?, _ b: ValueKind?) -> Bool {
        guard let a, let b else { return true }
        if a == .other || b == .other { return false }
        // Object keys compare only with keys of the same table.
        if case .object = a { return a == b }
        if case .object = b { return a == b }
        return a == b || a == .any || b == .any
    }

    /// Whether the kind is an object's key or an entity (ordered comparisons with them are false, as in
    /// memory).
    static func isObject(_ kind: ValueKind?) -> Bool {
        if case .object = kind { return true }
        return kind == .entity
    }

    private mutating func equality(_ left: ExpressionNode, _ right: ExpressionNode, negated: Bool,
                                   _ options: NSComparisonPredicate.Options) throws -> SQLExpression {
        let l = try folded(left, options), r = try folded(right, options)
        if l.kind == nil { return r.nullable ? (negated ? .isNotNull(r.expression) : .isNull(r.expression)) : .literal(negated) }
        if r.kind == nil { return l.nullable ? (negated ? .isNotNull(l.expression) : .isNull(l.expression)) : .literal(negated) }
        guard Self.compatible(l.kind, r.kind) else {
            // Values of different kinds are never equal; but nil == nil.
            guard l.nullable, r.nullable else { return .literal(negated) }
            return negated ? .or([.isNotNull(l.expression), .isNotNull(r.expression)])
                           : .and([.isNull(l.expression), .isNull(r.expression)])
        }
        if !negated, !(l.nullable && r.nullable) { return .compare(l.expression, .equal, r.expression) }
        return negated ? .isDistinct(l.expression, r.expression) : .isNotDistinct(l.expression, r.expression)
    }

    private mutating func ordered(_ left: ExpressionNode, _ op: SQLComparisonOperator, _ right: ExpressionNode,
                                  _ options: NSComparisonPredicate.Options) throws -> SQLExpression {
        let l = try folded(left, options), r = try folded(right, options)
        guard Self.compatible(l.kind, r.kind), l.kind != nil, r.kind != nil, !Self.isObject(l.kind) else { return .literal(false) }
        return .compare(l.expression, op, r.expression)
    }

    /// `BEGINSWITH`, `CONTAINS`, `LIKE`, …: false unless both sides may be strings.
    private mutating func stringTest(_ function: SQLFunction, _ left: ExpressionNode, _ right: ExpressionNode) throws -> SQLExpression {
        let l = try operand(left), r = try operand(right)
        guard l.kind == .string || l.kind == .any, r.kind == .string || r.kind == .any else { return .literal(false) }
        return .function(function, [l.expression, r.expression])
    }

    /// `x IN {a, b}` / `{a, b} CONTAINS x`, or a substring test when the collection side is a string.
    private mutating func membership(element: ExpressionNode, collection: ExpressionNode,
                                     options: NSComparisonPredicate.Options) throws -> SQLExpression {
        let items: [ExpressionNode]
        switch collection {
        case .aggregate(let nodes): items = nodes
        case .constant(let v) where v.collectionElements != nil: items = v.collectionElements!.map { .constant($0) }
        case .setOperation:
            // Of constants (others were rewritten by expandingSetOperations): computed in Swift.
            items = (try constantValue(collection).collectionElements ?? []).map { .constant($0) }
        default:
            // A string on the collection side: substring.
            return try stringTest(.contains(options), collection, element)
        }
        let e = try folded(element, options)
        var kept: [SQLExpression] = []
        var hasNull = false
        for item in items {
            let o = try folded(item, options)
            if o.kind == nil { hasNull = true; continue }
            guard Self.compatible(e.kind, o.kind) else { continue }
            kept.append(o.expression)
        }
        if e.kind == nil { return .literal(hasNull) }
        var alternatives: [SQLExpression] = []
        if !kept.isEmpty { alternatives.append(.inList(e.expression, kept)) }
        if hasNull { alternatives.append(.isNull(e.expression)) }
        if alternatives.isEmpty { return .literal(false) }
        return alternatives.count == 1 ? alternatives[0] : .or(alternatives)
    }
}

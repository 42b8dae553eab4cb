import Foundation

/// Translates a predicate into a SQL condition on table alias `t0`, collecting the values it binds
/// (values are never spliced into SQL text). The translation keeps in-memory semantics exactly:
///
/// - two-valued logic: a comparison with `NULL` is false, and `NOT p` is `NOT COALESCE(p, 0)`, so that
///   `NOT (price < 5)` is true for a `nil` price, as in memory;
/// - `==`/`!=` are null-safe (`IS`, `IS NOT`) where both sides may be `NULL`;
/// - `[c]`/`[d]` and the string operators call the registered functions (`ocd_fold`, `ocd_contains`, …)
///   that run the same Swift code as in-memory evaluation;
/// - values of different kinds (a string and a number) never compare: the comparison is the constant it
///   is in memory (`==` false, `!=` true);
/// - constant subexpressions are evaluated in Swift and bound.
///
/// Constructs that need relationships (`ANY`/`ALL`, `SUBQUERY`, `@count`, …) throw: they arrive with
/// relationships in wave 2.
struct LegacyPredicateSQL {
    private let layout: EntityLayout
    private let entityName: String
    private(set) var arguments: [Value] = []

    init(layout: EntityLayout, entityName: String) {
        self.layout = layout
        self.entityName = entityName
    }

    /// A translated expression: its SQL, the kind of value it yields (`nil`: always NULL), and the value
    /// itself when it is a constant.
    struct Operand {
        var sql: String
        var kind: ValueKind?
        var constant: Value?
        var nullable: Bool
        /// The values its `?` placeholders bind, in order.
        var args: [Value] = []
    }

    /// The condition's SQL; its bound values are appended to ``arguments`` in placeholder order.
    mutating func condition(_ node: PredicateNode) throws -> String {
        let (sql, args) = try fragment(node)
        arguments += args
        return sql
    }

    /// SQL text and the values of its placeholders. Each piece carries its own values, so a piece that is
    /// dropped (a comparison decided at translation time) never leaves a stray value behind.
    private func fragment(_ node: PredicateNode) throws -> (String, [Value]) {
        switch node {
        case .constant(let b): return (b ? "1" : "0", [])
        case .and(let parts), .or(let parts):
            let isAnd: Bool
            if case .and = node { isAnd = true } else { isAnd = false }
            guard !parts.isEmpty else { return (isAnd ? "1" : "0", []) }
            let pieces = try parts.map { try fragment($0) }
            return Self.junction(pieces[...], isAnd ? " AND " : " OR ")
        case .not(let inner):
            let (sql, args) = try fragment(inner)
            return ("NOT COALESCE(" + sql + ", 0)", args)
        case .comparison(let c):
            var sub = LegacyPredicateSQL(layout: layout, entityName: entityName)
            let sql = try sub.comparison(c)
            return (sql, sub.arguments)
        }
    }

    /// `(a AND b AND …)`; a long list is grouped into a balanced tree of groups of at most 16, because
    /// SQLite parses a chain as nested binary operators and refuses expressions deeper than 1,000.
    private static func junction(_ pieces: ArraySlice<(String, [Value])>, _ separator: String) -> (String, [Value]) {
        guard pieces.count > 16 else {
            return ("(" + pieces.map(\.0).joined(separator: separator) + ")", pieces.flatMap(\.1))
        }
        let middle = pieces.startIndex + pieces.count / 2
        let (l, r) = (junction(pieces[..<middle], separator), junction(pieces[middle...], separator))
        return ("(" + l.0 + separator + r.0 + ")", l.1 + r.1)
    }

    private func unsupported(_ what: String) -> CoreDataError {
        CoreDataError(NSCoreDataError, "unsupported in a fetch of entity \(entityName): \(what)")
    }

    /// Emits `sql` with the values of `operands`, in the order their placeholders appear in `sql`.
    private mutating func emit(_ sql: String, _ operands: Operand...) -> String {
        for o in operands { arguments += o.args }
        return sql
    }

    private mutating func comparison(_ c: ComparisonNode) throws -> String {
        guard c.modifier == .direct else {
            throw unsupported("\(c.modifier == .any ? "ANY" : "ALL") needs a to-many relationship (wave 2)")
        }
        let options = c.options.contains(.normalized) ? [] : c.options.intersection([.caseInsensitive, .diacriticInsensitive])
        // A comparison of constants is decided here, by the evaluator itself.
        if let l = try? constantValue(c.left), let r = try? constantValue(c.right) {
            return try ValueComparison.evaluate(l, c.op, r, c.options) ? "1" : "0"
        }
        switch c.op {
        case .in:
            return try membership(element: c.left, collection: c.right, options: options)
        case .contains:
            if case .aggregate = c.left { return try membership(element: c.right, collection: c.left, options: options) }
            if let v = try? constantValue(c.left), v.collectionElements != nil {
                return try membership(element: c.right, collection: c.left, options: options)
            }
            return try stringFunction("ocd_contains", c.left, c.right, options)
        case .beginsWith: return try stringFunction("ocd_beginswith", c.left, c.right, options)
        case .endsWith: return try stringFunction("ocd_endswith", c.left, c.right, options)
        case .like: return try stringFunction("ocd_like", c.left, c.right, options)
        case .matches: return try stringFunction("ocd_matches", c.left, c.right, options)
        case .between:
            let bounds: [ExpressionNode]
            switch c.right {
            case .aggregate(let items) where items.count == 2: bounds = items
            case .constant(let v) where v.collectionElements?.count == 2: bounds = v.collectionElements!.map { .constant($0) }
            default: throw unsupported("BETWEEN needs two bounds")
            }
            let lower = try ordered(c.left, .greaterThanOrEqualTo, bounds[0], options)
            let upper = try ordered(c.left, .lessThanOrEqualTo, bounds[1], options)
            if lower == "0" || upper == "0" {
                // Drop the values of the half that was emitted: the whole is false.
                arguments.removeAll()
                return "0"
            }
            return "(\(lower) AND \(upper))"
        case .equalTo, .notEqualTo:
            return try equality(c.left, c.right, negated: c.op == .notEqualTo, options)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return try ordered(c.left, c.op, c.right, options)
        case .customSelector:
            throw unsupported("custom selector comparisons")
        }
    }

    private static func compatible(_ a: ValueKind?, _ b: ValueKind?) -> Bool {
        guard let a, let b else { return true }
        if a == .other || b == .other { return false }
        return a == b || a == .any || b == .any
    }

    /// Applies `[c]`/`[d]` folding to a string operand (constants are folded in Swift before binding).
    private func folded(_ node: ExpressionNode, _ options: NSComparisonPredicate.Options) throws -> Operand {
        if let v = try? constantValue(node) {
            if !options.isEmpty, case .string(let s) = v { return constantOperand(.string(StringMatching.fold(s, options))) }
            return constantOperand(v)
        }
        var o = try operand(node)
        if !options.isEmpty, o.kind == .string { o.sql = "ocd_fold(\(o.sql), \(options.rawValue))" }
        return o
    }

    private mutating func equality(_ left: ExpressionNode, _ right: ExpressionNode, negated: Bool,
                                   _ options: NSComparisonPredicate.Options) throws -> String {
        let l = try folded(left, options), r = try folded(right, options)
        if l.kind == nil { return emit("\(r.sql) IS \(negated ? "NOT " : "")NULL", r) }
        if r.kind == nil { return emit("\(l.sql) IS \(negated ? "NOT " : "")NULL", l) }
        guard Self.compatible(l.kind, r.kind) else {
            // Values of different kinds are never equal; but nil == nil.
            guard l.nullable, r.nullable else { return negated ? "1" : "0" }
            return emit(negated ? "(\(l.sql) IS NOT NULL OR \(r.sql) IS NOT NULL)" : "(\(l.sql) IS NULL AND \(r.sql) IS NULL)", l, r)
        }
        if !negated, !(l.nullable && r.nullable) { return emit("\(l.sql) = \(r.sql)", l, r) }
        return emit("\(l.sql) IS \(negated ? "NOT " : "")\(r.sql)", l, r)
    }

    private mutating func ordered(_ left: ExpressionNode, _ op: NSComparisonPredicate.Operator, _ right: ExpressionNode,
                                  _ options: NSComparisonPredicate.Options) throws -> String {
        let l = try folded(left, options), r = try folded(right, options)
        guard Self.compatible(l.kind, r.kind), l.kind != nil, r.kind != nil else { return "0" }
        return emit("\(l.sql) \(PredicatePrinter.operatorText(op)) \(r.sql)", l, r)
    }

    private mutating func stringFunction(_ function: String, _ left: ExpressionNode, _ right: ExpressionNode,
                                         _ options: NSComparisonPredicate.Options) throws -> String {
        let l = try operand(left), r = try operand(right)
        guard l.kind == .string || l.kind == .any, r.kind == .string || r.kind == .any else { return "0" }
        return emit("\(function)(\(l.sql), \(r.sql), \(options.rawValue))", l, r)
    }

    /// `x IN {a, b}` / `{a, b} CONTAINS x`, or a substring test when the collection side is a string.
    private mutating func membership(element: ExpressionNode, collection: ExpressionNode,
                                     options: NSComparisonPredicate.Options) throws -> String {
        let items: [ExpressionNode]
        switch collection {
        case .aggregate(let nodes): items = nodes
        case .constant(let v) where v.collectionElements != nil: items = v.collectionElements!.map { .constant($0) }
        default:
            // A string on the collection side: substring.
            return try stringFunction("ocd_contains", collection, element, options)
        }
        let e = try folded(element, options)
        var kept: [Operand] = []
        var hasNull = false
        for item in items {
            let o = try folded(item, options)
            if o.kind == nil { hasNull = true; continue }
            guard Self.compatible(e.kind, o.kind) else { continue }
            kept.append(o)
        }
        if e.kind == nil { return hasNull ? "1" : "0" }
        var sql: [String] = []
        if !kept.isEmpty {
            sql.append("\(e.sql) IN (\(kept.map(\.sql).joined(separator: ", ")))")
            arguments += e.args
            for o in kept { arguments += o.args }
        }
        if hasNull {
            sql.append("\(e.sql) IS NULL")
            arguments += e.args
        }
        if sql.isEmpty { return "0" }
        return sql.count == 1 ? sql[0] : "(" + sql.joined(separator: " OR ") + ")"
    }

    private func constantOperand(_ v: Value) -> Operand {
        if case .null = v { return Operand(sql: "NULL", kind: nil, constant: v, nullable: true) }
        return Operand(sql: "?", kind: ValueKind(v), constant: v, nullable: false, args: [v])
    }

    /// The value of an expression that does not depend on the row, if it is one.
    private func constantValue(_ node: ExpressionNode) throws -> Value {
        switch node {
        case .constant(let v): return v
        case .function("now", []), .function("random", []): throw unsupported("not constant")
        case .function(let name, let args):
            let values = try args.map { try constantValue($0) }
            return try FunctionEvaluation.call(name, values)
        case .aggregate(let items): return .array(try items.map { try constantValue($0) })
        default: throw unsupported("not constant")
        }
    }

    private func operand(_ node: ExpressionNode) throws -> Operand {
        if let v = try? constantValue(node) {
            guard v.collectionElements == nil else { throw unsupported("a collection used as a value") }
            return constantOperand(v)
        }
        switch node {
        case .keyPath(let path):
            guard let slot = layout.slotByName[path] else {
                if path.contains(".") || path.contains("@") {
                    throw unsupported("the key path \(path) (relationships and collection operators come in wave 2)")
                }
                throw CoreDataError(NSCoreDataError, "keypath \(path) not found in entity \(entityName)")
            }
            guard let column = layout.columns[slot] else {
                throw CoreDataError(NSCoreDataError, "transient property \(path) of entity \(entityName) cannot be used in a fetch predicate")
            }
            let attribute = layout.attributes[slot]
            return Operand(sql: "t0.\(column)", kind: attribute.attributeType.valueKind, constant: nil, nullable: true)
        case .function("now", []):
            return constantOperand(.date(Date()))
        case .function(let name, let args):
            switch name {
            case "add:to:", "from:subtract:", "multiply:by:", "divide:by:":
                let a = try operand(args[0]), b = try operand(args[1])
                guard a.kind == .number || a.kind == nil, b.kind == .number || b.kind == nil else {
                    throw unsupported("arithmetic on non-numbers in \(PredicatePrinter.format(node))")
                }
                let sql: String
                switch name {
                case "add:to:": sql = "(\(a.sql) + \(b.sql))"
                case "from:subtract:": sql = "(\(a.sql) - \(b.sql))"
                case "multiply:by:": sql = "(\(a.sql) * \(b.sql))"
                default: sql = "(CAST(\(a.sql) AS REAL) / \(b.sql))"
                }
                return Operand(sql: sql, kind: .number, constant: nil, nullable: true, args: a.args + b.args)
            case "abs:":
                let a = try operand(args[0])
                guard a.kind == .number else { throw unsupported("abs: of a non-number") }
                return Operand(sql: "abs(\(a.sql))", kind: .number, constant: nil, nullable: true, args: a.args)
            case "uppercase:", "lowercase:", "length:":
                let a = try operand(args[0])
                guard a.kind == .string else { throw unsupported("\(name) of a non-string") }
                let f = name == "uppercase:" ? "ocd_upper" : name == "lowercase:" ? "ocd_lower" : "ocd_length"
                return Operand(sql: "\(f)(\(a.sql))", kind: name == "length:" ? .number : .string, constant: nil, nullable: true, args: a.args)
            default:
                throw unsupported("the function \(name)")
            }
        case .conditional(let p, let t, let f):
            let (condition, conditionArgs) = try fragment(p)
            let a = try operand(t), b = try operand(f)
            guard Self.compatible(a.kind, b.kind) else { throw unsupported("TERNARY with values of different kinds") }
            return Operand(sql: "CASE WHEN \(condition) THEN \(a.sql) ELSE \(b.sql) END", kind: a.kind ?? b.kind, constant: nil,
                           nullable: true, args: conditionArgs + a.args + b.args)
        case .evaluatedObject: throw unsupported("SELF (object comparisons come with relationships, wave 2)")
        case .subquery: throw unsupported("SUBQUERY (needs a to-many relationship, wave 2)")
        case .aggregate: throw unsupported("an aggregate used as a value")
        case .member: throw unsupported("a key path on a variable")
        case .variable(let name): throw CoreDataError(NSCoreDataError, "the variable $\(name) has no value")
        case .anyKey: throw unsupported("ANYKEY")
        case .symbol(let s): throw unsupported(s)
        case .constant: fatalError("handled above")
        }
    }
}

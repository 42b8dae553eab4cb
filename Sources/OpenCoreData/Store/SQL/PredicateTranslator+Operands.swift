import Foundation

extension PredicateTranslator {
    /// A translated expression: its SQL, the kind of value it yields (`nil`: always `NULL`), and whether
    /// it may be `NULL`.
    struct Operand {
        var expression: SQLExpression
        var kind: ValueKind?
        var nullable: Bool
    }

    /// A constant as an operand: the `NULL` literal, or a bound value.
    func constantOperand(_ v: Value) -> Operand {
        if case .null = v { return Operand(expression: .null, kind: nil, nullable: true) }
        return Operand(expression: .parameter(v), kind: ValueKind(v), nullable: false)
    }

    /// The value of an expression that does not depend on the row, if it is one (computed in Swift,
    /// by the evaluator's own functions).
    func constantValue(_ node: ExpressionNode) throws -> Value {
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

    /// Applies `[c]`/`[d]` folding to a string operand (constants are folded in Swift before binding).
    mutating func folded(_ node: ExpressionNode, _ options: NSComparisonPredicate.Options) throws -> Operand {
        if let v = try? constantValue(node) {
            if !options.isEmpty, case .string(let s) = v { return constantOperand(.string(StringMatching.fold(s, options))) }
            return constantOperand(v)
        }
        var o = try operand(node)
        if !options.isEmpty, o.kind == .string { o.expression = .function(.fold(options), [o.expression]) }
        return o
    }

    /// An expression as a value of the row: a constant, an attribute's column, arithmetic, a string or
    /// number function, or a `TERNARY`.
    mutating func operand(_ node: ExpressionNode) throws -> Operand {
        if let v = try? constantValue(node) {
            guard v.collectionElements == nil else { throw unsupported("a collection used as a value") }
            return constantOperand(v)
        }
        switch node {
        case .keyPath(let path):
            return try attribute(path)
        case .function("now", []):
            return constantOperand(.date(Date()))
        case .function(let name, let args):
            return try function(name, args, node)
        case .conditional(let p, let t, let f):
            let test = try condition(p)
            let a = try operand(t), b = try operand(f)
            guard Self.compatible(a.kind, b.kind) else { throw unsupported("TERNARY with values of different kinds") }
            return Operand(expression: .caseWhen(test, then: a.expression, else: b.expression),
                           kind: a.kind ?? b.kind, nullable: true)
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

    /// A key path resolved against the entity layout: an attribute's column on the entity's table. Key
    /// paths through relationships will join here (``SQLGenerationContext/join(_:)``, wave 2).
    private mutating func attribute(_ path: String) throws -> Operand {
        guard let slot = layout.slotByName[path] else {
            if path.contains(".") || path.contains("@") {
                throw unsupported("the key path \(path) (relationships and collection operators come in wave 2)")
            }
            throw CoreDataError(NSCoreDataError, "keypath \(path) not found in entity \(entityName)")
        }
        guard let column = layout.columns[slot] else {
            throw CoreDataError(NSCoreDataError, "transient property \(path) of entity \(entityName) cannot be used in a fetch predicate")
        }
        let alias = context.join([])
        return Operand(expression: .column(alias: alias, name: column), kind: (layout.kinds[slot].attributeType ?? .integer64AttributeType).valueKind,
                       nullable: true)
    }

    /// Arithmetic (`add:to:`, …), `abs:`, `uppercase:`, `lowercase:` and `length:` of row values.
    private mutating func function(_ name: String, _ args: [ExpressionNode], _ node: ExpressionNode) throws -> Operand {
        switch name {
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:":
            let a = try operand(args[0]), b = try operand(args[1])
            guard a.kind == .number || a.kind == nil, b.kind == .number || b.kind == nil else {
                throw unsupported("arithmetic on non-numbers in \(PredicatePrinter.format(node))")
            }
            let op: SQLArithmeticOperator
            switch name {
            case "add:to:": op = .add
            case "from:subtract:": op = .subtract
            case "multiply:by:": op = .multiply
            default: op = .divide
            }
            return Operand(expression: .arithmetic(a.expression, op, b.expression), kind: .number, nullable: true)
        case "abs:":
            let a = try operand(args[0])
            guard a.kind == .number else { throw unsupported("abs: of a non-number") }
            return Operand(expression: .function(.abs, [a.expression]), kind: .number, nullable: true)
        case "uppercase:", "lowercase:", "length:":
            let a = try operand(args[0])
            guard a.kind == .string else { throw unsupported("\(name) of a non-string") }
            let f: SQLFunction = name == "uppercase:" ? .upper : name == "lowercase:" ? .lower : .length
            return Operand(expression: .function(f, [a.expression]), kind: name == "length:" ? .number : .string,
                           nullable: true)
        default:
            throw unsupported("the function \(name)")
        }
    }
}

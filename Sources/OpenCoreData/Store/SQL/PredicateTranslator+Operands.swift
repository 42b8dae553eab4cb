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
        // A managed object or object ID: its key, bound as an integer. An unsaved object's temporary key,
        // or the key of a row of another store (overlapping configurations), names no row of this store,
        // so it compares as a value of another kind: equal to nothing.
        if let ref = v.objectRef, case .permanent(let root, let pk) = ref.key, ObjectKey.tag(root) == storeTag {
            return Operand(expression: .parameter(.int(pk)), kind: .object(root: ObjectKey.entityRoot(root)), nullable: false)
        }
        // An entity: its number, which the `Z_ENT` column holds (`entity == %@`, as Core Data translates it).
        if case .object(let boxed) = v, let entity = boxed.base as? NSEntityDescription, let layout = entity.layout {
            return Operand(expression: .parameter(.int(Int64(layout.entityID))), kind: .entity, nullable: false)
        }
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
        case .setOperation(let op, let l, let r): return try SetEvaluation.apply(op, constantValue(l), constantValue(r))
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
            if let grouped = try groupOperand(path) { return grouped }
            if PredicateTranslator.readsEntity(path, of: scopes[0].layout) {
                return Operand(expression: .column(alias: SQLGenerationContext.rootAlias, name: "Z_ENT"), kind: .entity, nullable: false)
            }
            return try keyPathOperand(path, scope: 0)
        case .evaluatedObject:
            return objectKey([], scope: 0)
        case .variable(let name):
            if let grouped = try groupOperand(name) { return grouped }
            guard let s = scope(ofVariable: name) else {
                throw CoreDataError(NSCoreDataError, "the variable $\(name) has no value")
            }
            return scopes[s].value ?? objectKey([], scope: s)
        case .member(.variable(let name), let path):
            guard let s = scope(ofVariable: name), scopes[s].value == nil else {
                throw CoreDataError(NSCoreDataError, "the variable $\(name) has no value")
            }
            return try keyPathOperand(path, scope: s)
        case .member(.subquery(let collection, let variable, let predicate), "@count"):
            return try subqueryCount(collection, variable, predicate)
        case .function("count:", let args) where args.count == 1:
            guard case .subquery(let collection, let variable, let predicate) = args[0] else { throw unsupported("count: of \(PredicatePrinter.format(args[0]))") }
            return try subqueryCount(collection, variable, predicate)
        case .function("now", []):
            return constantOperand(.date(Date()))
        case .function("FUNCTION", let args) where args.count == 2:
            // The string methods `FUNCTION(x, 'length')` may call are the built-ins of the same name.
            let builtins = ["uppercaseString": "uppercase:", "lowercaseString": "lowercase:", "length": "length:"]
            guard case .constant(.string(let selector)) = args[1], let name = builtins[selector] else { throw unsupported("the function FUNCTION") }
            return try function(name, [args[0]], node)
        case .function(let name, let args):
            return try function(name, args, node)
        case .conditional(let p, let t, let f):
            let test = try condition(p)
            let a = try operand(t), b = try operand(f)
            guard Self.compatible(a.kind, b.kind) else { throw unsupported("TERNARY with values of different kinds") }
            return Operand(expression: .caseWhen(test, then: a.expression, else: b.expression),
                           kind: a.kind ?? b.kind, nullable: true)
        case .subquery: throw unsupported("SUBQUERY as a value (count its objects: SUBQUERY(…).@count)")
        case .aggregate: throw unsupported("an aggregate used as a value")
        case .member: throw unsupported("a key path on a value that is not a SUBQUERY variable")
        case .anyKey: throw unsupported("ANYKEY")
        case .fetch: throw unsupported("FETCH (an NSFetchRequestExpression)")
        case .symbol(let s): throw unsupported(s)
        case .setOperation(let op, _, _):
            throw unsupported("\(op.rawValue) used as a value (in SQL a set expression is translated only as the collection of IN, CONTAINS, ANY or ALL)")
        case .constant: fatalError("handled above")
        }
    }

    /// Whether the key path `path` is the object's `entity` (written `entity` or `self.entity`), which
    /// SQL reads as the `Z_ENT` column, as Core Data does; not when the entity has a property of that name.
    static func readsEntity(_ path: String, of layout: EntityLayout) -> Bool {
        path == "entity" && layout.slotByName[path] == nil
    }

    /// Arithmetic (`add:to:`, …), `abs:`, `uppercase:`, `lowercase:` and `length:` of row values (also
    /// reached by `FUNCTION(x, 'uppercaseString' | 'lowercaseString' | 'length')`).
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
            let f: SQLFunction = name == "uppercase:" ? .upper : name == "lowercase:" ? .lower : .utf16Length
            return Operand(expression: .function(f, [a.expression]), kind: name == "length:" ? .number : .string,
                           nullable: true)
        default:
            throw unsupported("the function \(name)")
        }
    }
}

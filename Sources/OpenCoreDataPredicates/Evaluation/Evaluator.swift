import Foundation

/// Evaluates predicate and expression trees against an object, in memory.
///
/// Objects are reached through ``KeyValueCoding`` (dictionaries, managed objects, your own types);
/// values compare with ``ValueComparison``. `$VARIABLE`s come from the substitution variables, and
/// `SUBQUERY` binds its iterator variable to each element in turn.
package struct Evaluator {
    private var bindings: [String: Any?]
    /// The evaluated object when it reads values without boxing (set by ``evaluate(_:with:)``). Every plain
    /// key path of a predicate names a key of the evaluated object, so it is read from here directly.
    private var reader: PredicateValueReading?

    /// The evaluated object when it is a `[String: Any]`, read the same way.
    private var dictionary: [String: Any]?

    /// The substitution variables as the caller gave them, handed to block predicates unchanged.
    private var givenBindings: [String: Any]?

    package init(bindings: [String: Value] = [:], given: [String: Any]? = nil) {
        self.bindings = bindings.isEmpty ? [:] : bindings.mapValues { $0.anyValue }
        self.givenBindings = given
    }

    /// Evaluates a whole predicate against the object it is evaluated with.
    package mutating func evaluate(_ node: PredicateNode, with object: Any?) throws -> Bool {
        switch EvaluatedObject(object) {
        case .dictionary(let d): dictionary = d
        case .reader(let r): reader = r
        case .other: break
        }
        defer { reader = nil; dictionary = nil }
        return try evaluate(node, object)
    }

    package mutating func evaluate(_ node: PredicateNode, _ object: Any?) throws -> Bool {
        switch node {
        case .constant(let b): return b
        case .comparison(let c): return try evaluate(c, object)
        case .and(let parts):
            for p in parts where try !evaluate(p, object) { return false }
            return true
        case .or(let parts):
            for p in parts where try evaluate(p, object) { return true }
            return false
        case .not(let p): return try !evaluate(p, object)
        case .block(let b): return b.body(object, givenBindings)
        }
    }

    private mutating func evaluate(_ c: ComparisonNode, _ object: Any?) throws -> Bool {
        switch c.modifier {
        case .direct:
            return try ValueComparison.evaluate(value(c.left, object), c, value(c.right, object))
        case .any, .all:
            let left = try value(c.left, object)
            let elements: [Value]
            if let e = left.collectionElements {
                elements = e
            } else if left.isNull {
                elements = []
            } else {
                throw PredicateEvaluationError(.notACollection(quantifier: c.modifier == .any ? "ANY" : "ALL",
                                                               found: FunctionEvaluation.describe(left)))
            }
            let right = try value(c.right, object)
            if c.modifier == .any {
                for e in elements where try ValueComparison.evaluate(e, c, right) { return true }
                return false
            }
            for e in elements where try !ValueComparison.evaluate(e, c, right) { return false }
            return true
        }
    }

    /// The value of an expression.
    package mutating func value(_ node: ExpressionNode, _ object: Any?) throws -> Value {
        switch node {
        case .constant(let v):
            return v
        case .keyPath(let key) where reader != nil && KeyPathReader.isPlainKey(key):
            return try reader!.predicateValue(forKey: key)
        case .keyPath(let key) where dictionary != nil && KeyPathReader.isPlainKey(key):
            return Value(any: dictionary![key] ?? nil)
        case .evaluatedObject, .variable, .keyPath, .member, .subquery:
            return Value(any: try raw(node, object))
        case .function("objectFrom:withIndex:", let args) where args.count == 2:
            return Value(any: try raw(node, object))
        case .function("FUNCTION", let args):
            return try customFunction(args, object)
        case .function(let name, let args):
            return try FunctionEvaluation.call(name, args.map { try value($0, object) })
        case .aggregate(let items):
            return .array(try items.map { try value($0, object) })
        case .conditional(let p, let t, let f):
            return try evaluate(p, object) ? value(t, object) : value(f, object)
        case .anyKey:
            throw PredicateEvaluationError(.unsupported("ANYKEY (a Spotlight construct)"))
        case .symbol(let s):
            throw PredicateEvaluationError(.unsupported("\(s) outside an index"))
        case .setOperation(let op, let l, let r):
            return try SetEvaluation.apply(op, value(l, object), value(r, object))
        case .fetch(let request, let context, let countOnly):
            guard let fetch = try value(request, object).anyValue as? FetchExpressionRequest else {
                throw PredicateEvaluationError(.unsupported("FETCH whose first expression is not a fetch request: \(PredicatePrinter.format(node))"))
            }
            return Value(any: try fetch.resultForFetchExpression(in: try value(context, object).anyValue, countOnly: countOnly))
        }
    }

    /// Expressions that may yield objects rather than plain values, kept as they are for further key paths.
    private mutating func raw(_ node: ExpressionNode, _ object: Any?) throws -> Any? {
        switch node {
        case .evaluatedObject:
            return object
        case .variable(let name):
            guard let bound = bindings[name] else { throw PredicateEvaluationError(.unboundVariable(name)) }
            return bound
        case .keyPath(let path):
            return try KeyPathReader.value(of: object, keyPath: path)
        case .member(let base, let path):
            return try KeyPathReader.value(of: raw(base, object), keyPath: path)
        case .subquery(let collection, let variable, let predicate):
            let source = try raw(collection, object)
            guard let elements = KeyPathReader.collectionElements(source) else {
                if source == nil { return [Any]() }
                throw PredicateEvaluationError(.notACollection(quantifier: "SUBQUERY", found: "\(type(of: source!))"))
            }
            let saved = bindings[variable]
            defer { bindings[variable] = saved }
            var result: [Any] = []
            for element in elements {
                bindings[variable] = element
                if try evaluate(predicate, object) { result.append(element) }
            }
            return result
        case .function("objectFrom:withIndex:", let args) where args.count == 2:
            let base = try raw(args[0], object)
            if let dictionary = base as? KeyValueCoding, KeyPathReader.collectionElements(base) == nil {
                guard case .string(let key) = try value(args[1], object) else { return nil }
                return try dictionary.validatedValue(forKey: key)
            }
            guard let elements = KeyPathReader.collectionElements(base) else {
                if base == nil { return nil }
                throw PredicateEvaluationError(.notACollection(quantifier: "an index", found: "\(type(of: base!))"))
            }
            switch args[1] {
            case .symbol("FIRST"): return elements.first
            case .symbol("LAST"): return elements.last
            case .symbol("SIZE"): return elements.count
            default:
                let index = try value(args[1], object)
                guard case .int(let i) = index, i >= 0, i < elements.count else {
                    throw PredicateEvaluationError(.indexOutOfRange(index: PredicatePrinter.plainText(index), count: elements.count))
                }
                return elements[Int(i)]
            }
        default:
            return try value(node, object).anyValue
        }
    }

    /// `FUNCTION(receiver, 'name', args…)`: Linux has no Objective-C dispatch, so the selector must name a
    /// built-in function (the receiver becomes its first argument when the arity says so) or one of the
    /// string methods `uppercaseString`, `lowercaseString`, `length`.
    private mutating func customFunction(_ args: [ExpressionNode], _ object: Any?) throws -> Value {
        guard args.count >= 2, case .constant(.string(let selector)) = args[1] else {
            throw PredicateEvaluationError(.unsupported("FUNCTION without a selector name"))
        }
        let receiver = try value(args[0], object)
        let rest = try args.dropFirst(2).map { try value($0, object) }
        switch selector {
        case "uppercaseString": return try FunctionEvaluation.call("uppercase:", [receiver])
        case "lowercaseString": return try FunctionEvaluation.call("lowercase:", [receiver])
        case "length": return try FunctionEvaluation.call("length:", [receiver])
        default:
            if let arity = BuiltinFunctions.arity[selector] {
                if arity == rest.count { return try FunctionEvaluation.call(selector, rest) }
                if arity == rest.count + 1 { return try FunctionEvaluation.call(selector, [receiver] + rest) }
            }
            throw PredicateEvaluationError(.unsupported("FUNCTION(…, '\(selector)') (no Objective-C dispatch on Linux)"))
        }
    }
}

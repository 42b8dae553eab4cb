import OpenCoreData
import OpenCoreDataPredicates

/// The `parser` target: bytes → text → `NSPredicate(validatingFormat:)`. A malformed format must throw a
/// `PredicateFormatError` whose offset lies inside the text; a format that parses must print
/// (`predicateFormat`) to text that parses again to an equal predicate and prints the same; evaluating
/// it on a sample object may throw but never trap. Nothing may crash or hang.
enum ParserFuzzing {
    /// Values for `%@`, `%K`, `%d`… in the fuzzed text: a string (also a key), numbers, nil, a date.
    /// An array argument is a constant that prints as `{…}` and reparses as an aggregate of constants
    /// (documented in docs/Predicates.md): the round trip compares trees with that one difference folded.
    static var arguments: [Any] { ["name", 42, 2.5, NSNull(), ["a", 1] as [Any], Date(timeIntervalSinceReferenceDate: 1000), "price"] }

    /// The object predicates are evaluated against.
    static var sample: [String: Any] { [
        "name": "Колбаса «Молочная»", "price": 420, "weight": 1.5, "flag": true, "nothing": NSNull(),
        "tags": ["red", "green"], "items": [["name": "a", "price": 5] as [String: Any]],
        "owner": ["name": "Ann", "age": 40] as [String: Any], "created": Date(timeIntervalSinceReferenceDate: 1000),
    ] }

    /// Inputs that parsed (and round-tripped) and inputs rejected with a positioned error.
    static let counts = Locked((parsed: 0, rejected: 0))

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let predicate: NSPredicate
        do {
            predicate = try NSPredicate(validatingFormat: text, argumentArray: arguments)
        } catch let error as PredicateFormatError {
            if error.offset < 0 || error.offset > text.unicodeScalars.count {
                fuzzFailure("parser", "diagnostic offset \(error.offset) outside \(text.debugDescription)")
            }
            counts.withLock { $0.rejected += 1 }
            return
        } catch {
            fuzzFailure("parser", "unexpected error type \(type(of: error)) for \(text.debugDescription)")
        }
        let printed = predicate.predicateFormat
        let again: NSPredicate
        do {
            again = try NSPredicate(validatingFormat: printed, argumentArray: [])
        } catch {
            fuzzFailure("parser", "\(text.debugDescription) parsed, but its print \(printed.debugDescription) does not: \(error)")
        }
        if again.node.foldingConstantCollections() != predicate.node.foldingConstantCollections() {
            fuzzFailure("parser", "round trip changed \(text.debugDescription): printed \(printed.debugDescription), reprinted \(again.predicateFormat.debugDescription)\n  parsed:   \(predicate.node)\n  reparsed: \(again.node)")
        }
        if again.predicateFormat != printed {
            fuzzFailure("parser", "printing is not stable for \(text.debugDescription): \(printed.debugDescription) then \(again.predicateFormat.debugDescription)")
        }
        counts.withLock { $0.parsed += 1 }
        _ = try? predicate.evaluate(validating: sample, substitutionVariables: ["X": 1, "v1": "a"])
    }
}

extension PredicateNode {
    /// The tree with every constant array or set written as the aggregate of constants it prints as.
    func foldingConstantCollections() -> PredicateNode {
        switch self {
        case .constant, .block: return self
        case .comparison(var c):
            c.left = c.left.foldingConstantCollections()
            c.right = c.right.foldingConstantCollections()
            return .comparison(c)
        case .and(let ps): return .and(ps.map { $0.foldingConstantCollections() })
        case .or(let ps): return .or(ps.map { $0.foldingConstantCollections() })
        case .not(let p): return .not(p.foldingConstantCollections())
        }
    }
}

extension ExpressionNode {
    func foldingConstantCollections() -> ExpressionNode {
        switch self {
        case .constant(.array(let items)): return .aggregate(items.map { ExpressionNode.constant($0).foldingConstantCollections() })
        case .constant(.set(let items)):
            // A set prints its elements sorted by their printed text.
            let sorted = items.sorted { PredicatePrinter.format(ExpressionNode.constant($0)) < PredicatePrinter.format(ExpressionNode.constant($1)) }
            return .aggregate(sorted.map { ExpressionNode.constant($0).foldingConstantCollections() })
        case .constant, .evaluatedObject, .variable, .keyPath, .anyKey, .symbol: return self
        case .member(let base, let key): return .member(base.foldingConstantCollections(), key)
        case .function(let name, let args): return .function(name, args.map { $0.foldingConstantCollections() })
        case .aggregate(let items): return .aggregate(items.map { $0.foldingConstantCollections() })
        case .subquery(let c, let v, let p): return .subquery(c.foldingConstantCollections(), v, p.foldingConstantCollections())
        case .conditional(let p, let t, let f):
            return .conditional(p.foldingConstantCollections(), t.foldingConstantCollections(), f.foldingConstantCollections())
        case .setOperation(let op, let l, let r): return .setOperation(op, l.foldingConstantCollections(), r.foldingConstantCollections())
        case .fetch(let r, let c, let countOnly): return .fetch(r.foldingConstantCollections(), c.foldingConstantCollections(), countOnly: countOnly)
        }
    }
}

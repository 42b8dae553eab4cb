import Foundation
@testable import OpenCoreDataPredicates
import OpenCoreDataTesting
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate

/// Builds random predicate trees in canonical form (the form the parser produces), so that
/// parse(print(tree)) == tree is the property to check.
struct RandomPredicateGenerator {
    var rng: SeededRandom
    init(seed: UInt64) { rng = SeededRandom(seed: seed) }

    static let keys = ["name", "price", "weight", "tags", "items", "owner", "flag", "size", "first", "имя", "_x1", "count"]
    static let stringPool = ["", "a", "Колбаса «Молочная»", "café", "it's", "say \"hi\"", "back\\slash", "tab\there",
                             "line\nbreak", "*?", "%@", "NULL", "ß", "😀", "\u{1}", "e\u{301}"]

    mutating func predicate(depth: Int = 0) -> PredicateNode {
        let roll = depth >= 3 ? rng.int(0...9) : rng.int(0...15)
        switch roll {
        case 0: return .constant(rng.chance(0.5))
        case 10, 11: return .and((0..<rng.int(2...3)).map { _ in predicate(depth: depth + 1) })
        case 12, 13: return .or((0..<rng.int(2...3)).map { _ in predicate(depth: depth + 1) })
        case 14, 15: return .not(predicate(depth: depth + 1))
        default: return .comparison(comparison(depth: depth))
        }
    }

    mutating func comparison(depth: Int) -> ComparisonNode {
        let op = rng.pick(NSComparisonPredicate.Operator.allCases.filter { $0 != .customSelector })
        var options: NSComparisonPredicate.Options = []
        if rng.chance(0.3) { options.insert(.caseInsensitive) }
        if rng.chance(0.3) { options.insert(.diacriticInsensitive) }
        if rng.chance(0.1) { options.insert(.normalized) }
        let modifier: NSComparisonPredicate.Modifier = rng.chance(0.8) ? .direct : rng.chance(0.5) ? .any : .all
        let left = expression(depth: depth + 1)
        let right = op == .between ? .aggregate([expression(depth: depth + 2), expression(depth: depth + 2)]) : expression(depth: depth + 1)
        return ComparisonNode(left, op, right, modifier: modifier, options: options)
    }

    mutating func keyPath() -> String {
        var parts = [rng.pick(Self.keys)]
        if rng.chance(0.3) { parts.append(rng.pick(Self.keys)) }
        if rng.chance(0.15) { parts.append(rng.pick(["@count", "@sum", "@avg", "@min", "@max"])) }
        if parts.last != "@count", parts.last?.hasPrefix("@") == true { parts.append(rng.pick(Self.keys)) }
        if rng.chance(0.05) { parts.append(rng.pick(["length", "@count", "@distinctUnionOfObjects.length"])) }
        return parts.joined(separator: ".")
    }

    mutating func constant() -> Value {
        switch rng.int(0...11) {
        case 0: return .null
        case 1: return .bool(rng.chance(0.5))
        case 2, 3: return .int(Int64(rng.int(-1000...1000)))
        case 4: return .int(rng.pick([Int64.max, Int64.min, 0, -1]))
        case 5: return .double(Double(rng.int(-100_000...100_000)) / 64)
        case 6: return .double(rng.pick([1e-7, 1e20, -2.5e-300, 0.1, -0.0]))
        case 7, 8: return .string(rng.pick(Self.stringPool))
        case 9: return .date(Date(timeIntervalSinceReferenceDate: Double(rng.int(-1_000_000...1_000_000)) / 4))
        case 10: return .decimal(Decimal(string: rng.pick(["1.25", "-3", "0.001", "123456789.987654321"]))!)
        default: return .uuid(UUID(uuid: (UInt8(rng.int(0...255)), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)))
        }
    }

    mutating func expression(depth: Int) -> ExpressionNode {
        let roll = depth >= 4 ? rng.int(0...4) : rng.int(0...17)
        switch roll {
        case 0, 1: return .constant(constant())
        case 2, 3: return .keyPath(keyPath())
        case 4: return rng.chance(0.5) ? .variable(rng.pick(["X", "price", "v1"])) : .evaluatedObject
        case 5: return .member(.variable(rng.pick(["x", "item"])), keyPath())
        case 6, 7:
            let name = rng.pick(["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "raise:toPower:"])
            return .function(name, [expression(depth: depth + 1), expression(depth: depth + 1)])
        case 8:
            let name = rng.pick(["sum:", "count:", "min:", "max:", "average:", "uppercase:", "abs:", "now", "modulus:by:", "length:"])
            return .function(name, (0..<BuiltinFunctions.arity[name]!).map { _ in expression(depth: depth + 1) })
        case 9:
            let index: ExpressionNode = rng.chance(0.5) ? .symbol(rng.pick(["FIRST", "LAST", "SIZE"])) : .constant(.int(Int64(rng.int(0...3))))
            return .function("objectFrom:withIndex:", [.keyPath(keyPath()), index])
        case 10: return .aggregate((0..<rng.int(0...3)).map { _ in expression(depth: depth + 1) })
        case 11: return .subquery(.keyPath(keyPath()), "s", predicate(depth: depth + 2))
        case 12: return .conditional(predicate(depth: depth + 2), expression(depth: depth + 1), expression(depth: depth + 1))
        case 13: return .function("castObject:toType:", [.keyPath(keyPath()), .constant(.string(rng.pick(["NSNumber", "NSString", "NSDate"])))])
        case 14: return .function("FUNCTION", [.keyPath(keyPath()), .constant(.string("uppercaseString"))])
        case 15: return .member(.function("objectFrom:withIndex:", [.keyPath(keyPath()), .symbol("FIRST")]), keyPath())
        case 16:
            return .setOperation(rng.pick(SetOperation.allCases), expression(depth: depth + 1), expression(depth: depth + 1))
        default: return .anyKey
        }
    }

    /// Breaks a format string in one of several ways.
    mutating func mutate(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        let fragments = ["(", ")", "{", "}", "[", "]", "'", "\"", "%@", "%K", "%d", "$", "#", "@", ".", ",", "==", "AND",
                         "NOT", "ANY", "SUBQUERY(", "FUNCTION(", "TERNARY(", "CAST(", "\\", "**", "-", "0x", "1e", "[cd]", " "]
        for _ in 0..<rng.int(1...3) {
            let at = scalars.isEmpty ? 0 : rng.int(0...scalars.count)
            switch rng.int(0...5) {
            case 0 where !scalars.isEmpty:
                scalars.remove(at: min(at, scalars.count - 1))
            case 1:
                scalars.insert(contentsOf: rng.pick(fragments).unicodeScalars, at: at)
            case 2 where !scalars.isEmpty:
                scalars = Array(scalars[0..<at])
            case 3 where scalars.count > 1:
                let a = rng.int(0...(scalars.count - 1)), b = rng.int(0...(scalars.count - 1))
                scalars.swapAt(a, b)
            case 4 where !scalars.isEmpty:
                let start = rng.int(0...(scalars.count - 1))
                let end = min(scalars.count, start + rng.int(1...8))
                scalars.insert(contentsOf: scalars[start..<end], at: at)
            default:
                scalars.insert(Unicode.Scalar(UInt8(rng.int(32...126))), at: at)
            }
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }
}

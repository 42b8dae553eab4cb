import Foundation

/// Random predicates over the `Sample` entity of ``SQLFuzzing``, as a format string and its arguments,
/// driven by the fuzzer's bytes. Adapted from `DifferentialTests.Generator` (Tests/OpenCoreDataTests),
/// with the shapes of `RandomPredicateGenerator` that the SQL store translates: deeper `AND`/`OR`/`NOT`
/// trees, `NOT` before an operator, `%K`, `abs:`, arithmetic between two attributes, literal
/// collections. Every predicate it makes is one the store must translate (no relationships, no
/// `SUBQUERY`, no `ANY`), so a store error is a finding.
struct FuzzPredicateGenerator {
    var rng: FuzzBytes

    static let keys = ["s", "t", "i", "j", "d", "b", "dt"]
    static let strings = ["", "a", "A", "abc", "ABC", "café", "CAFÉ", "cafe", "Cafe\u{301}", "Колбаса «Молочная»",
                          "колбаса", "КОЛБАСА", "straße", "STRASSE", "it's", "a*c", "a?c", "%", "_", "file10", "file2",
                          "ёлка", "Ёлка", "елка", "x y", "zz", "ß", "Σίσυφος", "😀", "\\", "a\u{0}b", "\u{0}"]
    static let patterns = ["*", "a*", "*c", "?b?", "колб*", "*«*", "caf?", "a\\*c", "", "*SS*", "%", "_", "?", "*\\\\*"]
    static let regexes = ["a.*", ".*e", "[a-c]+", "колбаса.*", ".*", "caf(e|é)", "", "(?i)abc", "\\w+", ".?"]

    /// A value of the kind of attribute `key`, or nil.
    mutating func value(for key: String) -> Any? {
        if rng.chance(0.1) { return nil }
        switch key {
        case "s", "t": return rng.pick(Self.strings)
        case "i": return rng.int(-60...60)
        case "j": return rng.int(-6...6)
        case "d": return Double(rng.int(-200...200)) / 4
        case "b": return rng.chance(0.5)
        default: return Date(timeIntervalSinceReferenceDate: Double(rng.int(-20...20)) * 100)
        }
    }

    /// A format argument: mostly of `key`'s kind, sometimes of another kind (which must compare as in memory).
    mutating func argument(for key: String) -> Any {
        let kind = rng.chance(0.85) ? key : rng.pick(["s", "i", "d", "b", "dt", "nil"])
        if kind == "nil" { return NSNull() }
        return value(for: kind) ?? NSNull()
    }

    mutating func comparison(_ args: inout [Any]) -> String {
        let key = rng.pick(Self.keys)
        let stringKey = key == "s" || key == "t"
        let numericKey = key == "i" || key == "j" || key == "d"
        let options = rng.pick(["", "", "[c]", "[d]", "[cd]", "[n]", "[cdn]"])
        let negated = rng.chance(0.1) ? "NOT " : ""
        switch rng.int(0...15) {
        case 0, 1, 2:
            let op = rng.pick(["==", "!=", "<", "<=", ">", ">=", "=", "<>", "=<", "=>"])
            args.append(argument(for: key))
            return rng.chance(0.2) ? "%@ \(op)\(stringKey ? options : "") \(key)" : "\(key) \(op)\(stringKey ? options : "") %@"
        case 3:
            let other = rng.pick(Self.keys)
            return "\(key) \(rng.pick(["==", "!=", "<", ">=", "<=", ">"]))\(options) \(other)"
        case 4 where stringKey:
            let op = rng.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS"])
            args.append(rng.chance(0.9) ? rng.pick(Self.strings) : (rng.chance(0.5) ? 5 : NSNull()) as Any)
            return "\(key) \(negated)\(op)\(options) %@"
        case 5 where stringKey:
            args.append(rng.pick(Self.patterns))
            return "\(key) \(negated)LIKE\(options) %@"
        case 6 where stringKey:
            args.append(rng.pick(Self.regexes))
            return "\(key) \(negated)MATCHES\(rng.pick(["", "[c]", "[d]", "[cd]"])) %@"
        case 7:
            let items = (0..<rng.int(0...4)).map { _ in argument(for: key) }
            args.append(items)
            return "\(key) \(negated)IN\(stringKey ? options : "") %@"
        case 8:
            args.append(argument(for: key))
            args.append(argument(for: key))
            return "\(key) \(negated)BETWEEN\(stringKey ? options : "") {%@, %@}"
        case 9 where stringKey:
            args.append(rng.pick(Self.strings))
            return rng.chance(0.5) ? "%@ IN\(options) \(key)"
                : "\(rng.pick(["uppercase:", "lowercase:", "length:"]))(\(key)) \(rng.pick(["==", ">", "<", "!="])) %@"
        case 10 where numericKey:
            let op = rng.pick(["+", "-", "*", "/"])
            args.append(rng.pick([-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]))
            args.append(rng.int(-20...20))
            return "\(key) \(op) %@ \(rng.pick(["<", ">=", "==", "!="])) %@"
        case 11 where numericKey:
            args.append(argument(for: key))
            return "abs:(\(key)) \(rng.pick(["<", ">=", "=="])) %@"
        case 12 where numericKey:
            let other = rng.pick(["i", "j", "d"])
            return "\(key) \(rng.pick(["+", "-", "*"])) \(other) \(rng.pick(["<", ">", "==", "!="])) \(rng.int(-10...10))"
        case 13:
            args.append(key)
            args.append(argument(for: key))
            return "%K \(rng.pick(["==", "!=", "<", ">="]))\(stringKey ? options : "") %@"
        case 14:
            let literal = rng.pick(["{}", "{1, 2}", "{-1, 0, 1}", "{'a', 'A', ''}", "{nil}", "{0.5, -12.75}", "{'café', 3}"])
            return "\(key) \(negated)IN\(stringKey ? options : "") \(literal)"
        default:
            return rng.pick(["TRUEPREDICATE", "FALSEPREDICATE", "\(key) == nil", "\(key) != nil", "NOT \(key) == nil",
                             "nil == \(key)", "\(key) == \(key)", "\(key) != \(key)"])
        }
    }

    /// A tree of up to four levels of `AND` / `OR` (two or three operands) and `NOT`.
    mutating func predicate(depth: Int, _ args: inout [Any]) -> String {
        switch depth > 3 ? 0 : rng.int(0...7) {
        case 4: return "(" + (0..<rng.int(2...3)).map { _ in predicate(depth: depth + 1, &args) }.joined(separator: " AND ") + ")"
        case 5: return "(" + (0..<rng.int(2...3)).map { _ in predicate(depth: depth + 1, &args) }.joined(separator: " OR ") + ")"
        case 6: return "NOT (\(predicate(depth: depth + 1, &args)))"
        default: return comparison(&args)
        }
    }
}

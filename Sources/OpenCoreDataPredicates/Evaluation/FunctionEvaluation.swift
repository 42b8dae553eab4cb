import Foundation

/// The built-in `NSExpression` functions, evaluated on values. Integer arithmetic stays integral while it
/// does not overflow (then it becomes `Double`); `divide:by:` and the math functions give `Double`.
package enum FunctionEvaluation {
    package static func call(_ name: String, _ args: [Value]) throws -> Value {
        func number(_ i: Int) throws -> Value {
            let v = args[i]
            guard v.isNumber || v.isNull else { throw PredicateEvaluationError(.wrongArgument(function: name, found: describe(v))) }
            return v
        }
        func double(_ i: Int) throws -> Double? { try number(i).doubleValue }
        func int(_ i: Int) throws -> Int64? {
            switch try number(i) {
            case .int(let v): return v
            case .bool(let b): return b ? 1 : 0
            case .null: return nil
            case let v: return v.doubleValue.flatMap { $0.isFinite && abs($0) < 9.2e18 ? Int64($0) : nil }
            }
        }
        func unary(_ f: (Double) -> Double) throws -> Value { try double(0).map { .double(f($0)) } ?? .null }

        switch name {
        case "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:":
            guard let elements = args[0].collectionElements else {
                if args[0].isNull { return name == "count:" ? .int(0) : .null }
                throw PredicateEvaluationError(.wrongArgument(function: name, found: describe(args[0])))
            }
            return try aggregate(name, elements)
        case "add:to:", "from:subtract:", "multiply:by:":
            if args[0].isNull || args[1].isNull { return .null }
            if case .date(let d) = args[0], name != "multiply:by:", let s = try double(1) {
                return .date(d.addingTimeInterval(name == "add:to:" ? s : -s))
            }
            if let x = try exactInt(args[0], name), let y = try exactInt(args[1], name) {
                let (r, overflow): (Int64, Bool) = name == "add:to:" ? x.addingReportingOverflow(y)
                    : name == "from:subtract:" ? x.subtractingReportingOverflow(y) : x.multipliedReportingOverflow(by: y)
                if !overflow { return .int(r) }
            }
            if case .decimal = args[0], let x = decimal(args[0]), let y = decimal(args[1]) {
                return .decimal(name == "add:to:" ? x + y : name == "from:subtract:" ? x - y : x * y)
            }
            guard let x = try double(0), let y = try double(1) else { return .null }
            return .double(name == "add:to:" ? x + y : name == "from:subtract:" ? x - y : x * y)
        case "divide:by:":
            // Division by zero is nil (as SQL's `x / 0` is NULL), not an infinity: comparisons with it are
            // false in memory and in a store alike.
            guard let x = try double(0), let y = try double(1), y != 0 else { return .null }
            return .double(x / y)
        case "modulus:by:":
            if let x = try exactInt(args[0], name), let y = try exactInt(args[1], name), y != 0 {
                return .int(x.remainderReportingOverflow(dividingBy: y).partialValue)
            }
            guard let x = try double(0), let y = try double(1) else { return .null }
            return .double(fmod(x, y))
        case "raise:toPower:":
            guard let x = try double(0), let y = try double(1) else { return .null }
            return .double(pow(x, y))
        case "sqrt:": return try unary { $0.squareRoot() }
        case "log:": return try unary(log10)
        case "ln:": return try unary(log)
        case "exp:": return try unary(exp)
        case "ceiling:": return try unary { $0.rounded(.up) }
        case "floor:": return try unary { $0.rounded(.down) }
        case "trunc:": return try unary { $0.rounded(.towardZero) }
        case "abs:":
            if case .int(let v) = args[0], v != Int64.min { return .int(abs(v)) }
            return try unary(abs)
        case "random": return .double(Double.random(in: 0..<1))
        case "random:":
            if let elements = args[0].collectionElements { return elements.randomElement() ?? .null }
            guard let n = try int(0), n > 0 else { return .null }
            return .int(Int64.random(in: 0..<n))
        case "now": return .date(Date())
        case "uppercase:", "lowercase:", "canonical:":
            guard case .string(let s) = args[0] else {
                if args[0].isNull { return .null }
                throw PredicateEvaluationError(.wrongArgument(function: name, found: describe(args[0])))
            }
            if name == "canonical:" { return .string(StringMatching.fold(s, [.caseInsensitive, .diacriticInsensitive])) }
            return .string(name == "uppercase:" ? s.uppercased() : s.lowercased())
        case "length:":
            switch args[0] {
            // NSString's length, as Apple's function returns: UTF-16 units, not characters.
            case .string(let s): return .int(Int64(s.utf16.count))
            case .null: return .null
            case let v:
                if let elements = v.collectionElements { return .int(Int64(elements.count)) }
                throw PredicateEvaluationError(.wrongArgument(function: name, found: describe(v)))
            }
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:":
            guard let x = try int(0), let y = try int(1) else { return .null }
            switch name {
            case "bitwiseAnd:with:": return .int(x & y)
            case "bitwiseOr:with:": return .int(x | y)
            case "bitwiseXor:with:": return .int(x ^ y)
            case "leftshift:by:": return .int(x << y)
            default: return .int(x >> y)
            }
        case "onesComplement:":
            guard let x = try int(0) else { return .null }
            return .int(~x)
        case "noindex:":
            return args[0]
        case "castObject:toType:":
            guard case .string(let type) = args[1] else {
                throw PredicateEvaluationError(.wrongArgument(function: name, found: describe(args[1])))
            }
            return ValueCasting.cast(args[0], to: type) ?? .null
        default:
            throw PredicateEvaluationError(.unsupported("the function \(name)"))
        }
    }

    private static func exactInt(_ v: Value, _ name: String) throws -> Int64? {
        switch v {
        case .int(let i): return i
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    private static func decimal(_ v: Value) -> Decimal? {
        switch v {
        case .decimal(let d): return d
        case .int(let i): return Decimal(i)
        case .double(let d): return Decimal(shortestDigitsOf: d) ?? Decimal(d)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// `sum:`, `average:`, `min:`, `max:`, `count:`, `median:`, `mode:`, `stddev:` over a collection.
    package static func aggregate(_ name: String, _ elements: [Value]) throws -> Value {
        switch name {
        case "count:": return .int(Int64(elements.count))
        case "min:", "max:":
            var best: Value? = nil
            for e in elements where !e.isNull {
                guard let b = best else { best = e; continue }
                guard let order = ValueComparison.compare(e, b) else {
                    throw PredicateEvaluationError(.wrongArgument(function: name, found: "values that do not compare"))
                }
                if (name == "min:" && order == .orderedAscending) || (name == "max:" && order == .orderedDescending) { best = e }
            }
            return best ?? .null
        case "sum:":
            var total: Value = .int(0)
            for e in elements where !e.isNull { total = try call("add:to:", [total, e]) }
            return total
        default:
            let numbers = try elements.filter { !$0.isNull }.map { v -> Double in
                guard let d = v.doubleValue else { throw PredicateEvaluationError(.wrongArgument(function: name, found: describe(v))) }
                return d
            }
            guard !numbers.isEmpty else { return .null }
            switch name {
            case "average:": return .double(numbers.reduce(0, +) / Double(numbers.count))
            case "median:":
                let s = numbers.sorted()
                return .double(s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2)
            case "mode:":
                var counts: [Double: Int] = [:]
                for n in numbers { counts[n, default: 0] += 1 }
                let top = counts.values.max() ?? 0
                return .array(counts.filter { $0.value == top }.keys.sorted().map { .double($0) })
            case "stddev:":
                let mean = numbers.reduce(0, +) / Double(numbers.count)
                return .double((numbers.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(numbers.count)).squareRoot())
            default: throw PredicateEvaluationError(.unsupported("the function \(name)"))
            }
        }
    }

    static func describe(_ v: Value) -> String {
        switch v {
        case .null: return "nil"
        case .string: return "a string"
        case .array, .set: return "a collection"
        case .date: return "a date"
        case .data: return "data"
        case .uuid: return "a UUID"
        case .url: return "a URL"
        case .object(let o): return "a \(type(of: o.base))"
        default: return "a number"
        }
    }
}

import Foundation

/// The arguments of a format string, consumed left to right by `%@`, `%K` and the printf specifiers.
///
/// - `%@`: any value — strings, numbers, `Bool`, dates, data, UUIDs, URLs, arrays and sets (a constant
///   collection, as Darwin's `NSArray` argument), `nil`/`NSNull` (`NULL`), managed objects and object IDs.
/// - `%K`: a key path string.
/// - `%d %i %u %x %o` with `h hh l ll q z j t` length modifiers: an integer.
/// - `%f %e %g` (and `%lf`, `%Lf`): a floating-point number; integers are accepted and widened.
/// - `%c`: a one-character string or a character code.
struct FormatArguments {
    private let values: [Any]
    private(set) var used = 0
    /// The `%@` objects whose identity a constant would lose, and the tables of `%@` expressions.
    private var given: [(value: Value, object: Any)] = []
    private var givenInExpressions: [GivenConstants?] = []
    var givenConstants: GivenConstants? { GivenConstants.combining(given, givenInExpressions) }
    var count: Int { values.count }

    init(_ values: [Any]) { self.values = values }

    mutating func next(_ spec: String, at token: Token, format: String, scalars: [Unicode.Scalar]) throws(PredicateFormatError) -> ExpressionNode {
        let specifier = "%" + spec
        let found = token.describe(in: scalars)
        guard used < values.count else {
            throw PredicateFormatError(.missingArgument(specifier: specifier, index: used), format: format, offset: token.offset, found: found)
        }
        let index = used
        let raw = values[index]
        used += 1
        func bad(_ why: String) -> PredicateFormatError {
            PredicateFormatError(.badArgument(specifier: specifier, index: index, reason: why), format: format, offset: token.offset, found: found)
        }
        let value = flattenOptional(raw)
        let kind = value.map { "is a \(type(of: $0))" } ?? "is nil"
        switch spec.last! {
        case "@":
            if let expression = value as? NSExpression {
                givenInExpressions.append(expression.constantsForParent)
                return expression.node
            }
            let constant = Value(any: value)
            if let entry = GivenConstants.entry(for: value, value: constant) { given.append(entry) }
            return .constant(constant)
        case "K":
            guard let path = (value as? String) ?? (value as? NSString).map({ $0 as String }) else {
                throw bad("\(kind), expected a key path string")
            }
            guard !path.isEmpty, !path.hasPrefix("."), !path.hasSuffix("."), !path.contains("..") else {
                throw bad("is not a key path: \"\(path)\"")
            }
            return .keyPath(path)
        case "d", "i", "u", "x", "X", "o":
            switch Value(any: value) {
            case .int(let v): return .constant(.int(v))
            case .bool(let b): return .constant(.int(b ? 1 : 0))
            case .double(let d) where d.rounded() == d && abs(d) < 9.2e18:
                if value is NSNumber { return .constant(.int(Int64(d))) }
                throw bad("\(kind), expected an integer")
            default: throw bad("\(kind), expected an integer")
            }
        case "f", "F", "e", "E", "g", "G":
            switch Value(any: value) {
            case .double(let d): return .constant(.double(d))
            case .int(let v): return .constant(.double(Double(v)))
            case .decimal(let d): return .constant(.double(d.nearestDouble))
            default: throw bad("\(kind), expected a floating-point number")
            }
        case "c":
            if let s = value as? String, s.count == 1 { return .constant(.string(s)) }
            if let c = value as? Character { return .constant(.string(String(c))) }
            if case .int(let code) = Value(any: value), let u = Unicode.Scalar(UInt32(truncatingIfNeeded: code)) {
                return .constant(.string(String(Character(u))))
            }
            throw bad("\(kind), expected a character")
        default:
            throw bad("is not supported")
        }
    }
}

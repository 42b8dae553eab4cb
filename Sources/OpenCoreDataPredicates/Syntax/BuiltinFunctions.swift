import Foundation

/// Apple's built-in `NSExpression` functions (`NSExpression(forFunction:arguments:)`), by canonical name.
/// In a format string a function is written with its name and parenthesized arguments, with or without
/// the colons: `sum:(items.price)`, `sum(items.price)`, `modulus:by:(a, 3)`, `now()`.
package enum BuiltinFunctions {
    /// Canonical name → number of arguments.
    package static let arity: [String: Int] = [
        "sum:": 1, "count:": 1, "min:": 1, "max:": 1, "average:": 1, "median:": 1, "mode:": 1, "stddev:": 1,
        "add:to:": 2, "from:subtract:": 2, "multiply:by:": 2, "divide:by:": 2, "modulus:by:": 2,
        "sqrt:": 1, "log:": 1, "ln:": 1, "raise:toPower:": 2, "exp:": 1, "ceiling:": 1, "abs:": 1, "trunc:": 1,
        "floor:": 1, "random": 0, "random:": 1, "now": 0, "uppercase:": 1, "lowercase:": 1,
        "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2, "leftshift:by:": 2,
        "rightshift:by:": 2, "onesComplement:": 1, "noindex:": 1, "length:": 1,
        "castObject:toType:": 2, "objectFrom:withIndex:": 2,
        // Core Data's derived attributes: a string folded for case and diacritics (`canonical:(name)`).
        "canonical:": 1,
    ]

    /// The canonical name for `name` as written (with or without colons), if it takes `arity` arguments.
    package static func canonicalName(_ name: String, arity count: Int) -> String? {
        if arity[name] == count { return name }
        let bare = name.hasSuffix(":") ? String(name.dropLast()) : name
        let candidates = arity.filter { entry in
            entry.value == count && (entry.key == bare || entry.key == bare + ":"
                || (count == 2 && entry.key.hasPrefix(bare + ":") && entry.key.split(separator: ":").count == 2))
        }
        return candidates.count == 1 ? candidates.first!.key : nil
    }

    /// Functions printed as infix operators.
    package static let infix: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
    ]

    /// Whether `FUNCTION(receiver, 'selector', arguments…)` can run: a string method the evaluator knows, or
    /// a built-in function taking the arguments, or the receiver and the arguments.
    package static func acceptsFUNCTION(_ selector: String, argumentCount: Int) -> Bool {
        if ["uppercaseString", "lowercaseString", "length"].contains(selector) { return argumentCount == 0 }
        guard let expected = arity[selector] else { return false }
        return expected == argumentCount || expected == argumentCount + 1
    }

    /// The names `NSExpression(forFunction:arguments:)` and `FUNCTION(…)` accept: Apple's list (the table
    /// above; `castObject:toType:` and `objectFrom:withIndex:` are what Apple's `CAST` and indexes parse to,
    /// `canonical:` is Core Data's), exactly as Apple spells them, with their number of arguments.
    package static func check(_ name: String, argumentCount: Int) throws(FunctionNameError) {
        guard let expected = arity[name] else {
            throw FunctionNameError(name: name, argumentCount: argumentCount, expected: nil)
        }
        guard expected == argumentCount else {
            throw FunctionNameError(name: name, argumentCount: argumentCount, expected: expected)
        }
    }
}

/// A function name that Apple's `NSExpression` does not define, or a defined one with the wrong number of
/// arguments (`NSExpression(validatingFunction:arguments:)`). Darwin raises `NSInvalidArgumentException`.
public struct FunctionNameError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The name as given.
    public let name: String
    /// The number of arguments given.
    public let argumentCount: Int
    /// The number the function takes, when the name is known.
    public let expected: Int?

    public var description: String {
        if let expected {
            return "the function \(name) takes \(expected) argument\(expected == 1 ? "" : "s"), not \(argumentCount)"
        }
        if name == "distanceToLocation:fromLocation:" {
            return "the function distanceToLocation:fromLocation: needs Core Location, which Linux does not have"
        }
        return "unknown function \(name): NSExpression's functions are "
            + BuiltinFunctions.arity.keys.sorted().joined(separator: ", ")
    }
}

import Foundation

/// A malformed predicate or expression format string: where it broke, what was expected, what was found.
///
/// `description` is the full diagnostic, for example:
///
///     Unable to parse the format string "name == == 1": expected an expression, found "==" at offset 8
///     name == == 1
///             ^
///
/// Core Data raises `NSInvalidArgumentException` with "Unable to parse the format string"; this is the
/// Swift error the throwing entry points (`NSPredicate(validatingFormat:)`) throw instead.
public struct PredicateFormatError: Error, CustomStringConvertible, Sendable, Equatable {
    package enum Kind: Equatable, Sendable {
        case unexpected(expected: String)
        case tooDeep(limit: Int)
        case missingArgument(specifier: String, index: Int)
        case badArgument(specifier: String, index: Int, reason: String)
        case extraArguments(used: Int, given: Int, quotedSpecifier: Bool)
        case invalid(String)
    }

    package let kind: Kind
    /// The format string as given.
    public let format: String
    /// Where it broke, in Unicode scalars from the start of the format string.
    public let offset: Int
    /// The text found there (`"end of input"` at the end).
    public let found: String

    package init(_ kind: Kind, format: String, offset: Int, found: String) {
        self.kind = kind
        self.format = format
        self.offset = offset
        self.found = found
    }

    /// What the parser expected at ``offset``, when the error is an unexpected token.
    public var expected: String? {
        if case .unexpected(let e) = kind { return e }
        return nil
    }

    /// One line saying what is wrong, without the format string and caret.
    public var reason: String {
        switch kind {
        case .unexpected(let expected): return "expected \(expected), found \(found)"
        case .tooDeep(let limit): return "nesting deeper than \(limit) levels"
        case .missingArgument(let spec, let index): return "no argument for \(spec) (argument \(index + 1))"
        case .badArgument(let spec, let index, let why): return "argument \(index + 1) for \(spec) \(why)"
        case .extraArguments(let used, let given, let quoted):
            return "the format uses \(used) argument\(used == 1 ? "" : "s") but \(given) were given"
                + (quoted ? " (a quoted '%@', '%K' or '$VAR' is literal text, not a specifier)" : "")
        case .invalid(let why): return why
        }
    }

    /// The diagnostic: the reason with its offset, then the format string and a caret under the offset.
    public var description: String {
        let line = format.unicodeScalars.map { $0 == "\n" || $0 == "\t" ? " " : String($0) }.joined()
        return "Unable to parse the format string \"\(format)\": \(reason) at offset \(offset)\n"
            + line + "\n" + String(repeating: " ", count: offset) + "^"
    }
}

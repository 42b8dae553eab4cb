import Foundation

/// Lets `NSPredicate(format:)` return the subclass the format string describes, as Apple's does.
///
/// A Swift class initializer always makes an instance of the class it is called on, but an initializer
/// declared in an extension of a protocol that is not class-bound may assign `self`: the call syntax stays
/// `NSPredicate(format: …)` while the object made is the ``NSComparisonPredicate`` or
/// ``NSCompoundPredicate`` the parser built. Only `NSPredicate` conforms; not meant for other use.
public protocol _NSPredicateFormatInitializing {}

extension NSPredicate: _NSPredicateFormatInitializing {}

extension _NSPredicateFormatInitializing where Self: NSPredicate {
    /// Mirrors `NSPredicate(format:_:)`: an ``NSComparisonPredicate`` for a comparison, an
    /// ``NSCompoundPredicate`` for `AND`/`OR`/`NOT`, a plain `NSPredicate` for `TRUEPREDICATE` and
    /// `FALSEPREDICATE`. Traps on a malformed format, printing where it broke, as Darwin raises
    /// `NSInvalidArgumentException`; use ``init(validatingFormat:_:)`` for input you do not control.
    /// Arguments the format does not use are ignored, as on Darwin (a quoted `'%@'` is a literal).
    public init(format predicateFormat: String, _ args: Any?...) {
        self.init(format: predicateFormat, argumentArray: args.map { $0 as Any })
    }

    /// Mirrors `NSPredicate(format:argumentArray:)`; see ``init(format:_:)``.
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        do {
            let parsed = try PredicateParser.parsePredicateKeepingArguments(predicateFormat, arguments: arguments ?? [], allowsUnusedArguments: true)
            self = try Self.made(parsed, format: predicateFormat)
        } catch {
            fatalError("\(error)")
        }
    }

    /// Parses a format string, throwing a ``PredicateFormatError`` (with offset, expectation and a caret
    /// line) instead of trapping; returns the same classes as ``init(format:_:)``. Not in Core Data; the
    /// safe entry point for untrusted text.
    ///
    /// Unlike `init(format:)`, an argument the format does not use is an error here: it almost always
    /// means a specifier was quoted (`'%@'` is the two characters, not an argument) or dropped, and a
    /// checked entry point should say so rather than run a different predicate than the one meant.
    public init(validatingFormat predicateFormat: String, _ args: Any?...) throws {
        try self.init(validatingFormat: predicateFormat, argumentArray: args.map { $0 as Any })
    }

    /// The throwing form of `NSPredicate(format:argumentArray:)`; see ``init(validatingFormat:_:)``.
    public init(validatingFormat predicateFormat: String, argumentArray arguments: [Any]?) throws {
        let parsed = try PredicateParser.parsePredicateKeepingArguments(predicateFormat, arguments: arguments ?? [], allowsUnusedArguments: false)
        self = try Self.made(parsed, format: predicateFormat)
    }

    /// The object of the most specific class for the parsed tree, when it is a `Self`
    /// (`NSComparisonPredicate(format:)` with a compound format is a ``PredicateFormatError``: the object
    /// cannot be of the class named). Its constants return the `%@` objects given (``GivenConstants``).
    private static func made(_ parsed: (node: PredicateNode, given: GivenConstants?), format: String) throws(PredicateFormatError) -> Self {
        let made = NSPredicate.wrap(parsed.node)
        made.givenConstants = parsed.given
        guard let typed = made as? Self else {
            throw PredicateFormatError(.invalid("the format describes an \(type(of: made)), not an \(Self.self)"),
                                       format: format, offset: 0, found: "\"\(format.prefix(24))\"")
        }
        return typed
    }
}

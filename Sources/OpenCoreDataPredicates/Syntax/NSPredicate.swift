import Foundation
import Synchronization

/// Mirrors Foundation's `NSPredicate`: a logical condition, made from a format string or built from
/// `NSComparisonPredicate` / `NSCompoundPredicate`, evaluated in memory or translated to SQL by a store.
///
/// Differences from Darwin, each deliberate:
/// - `NSPredicate(format:)` cannot return a subclass in Swift, so `NSPredicate(format: "a == 1") as?
///   NSComparisonPredicate` is `nil`; use ``comparisonPredicate`` / ``compoundPredicate`` to see the structure.
/// - Format arguments are `Any?` (Darwin: `CVarArg`), so arrays, sets and dates pass as they do on Darwin.
/// - ``init(validatingFormat:_:)`` throws a ``PredicateFormatError`` instead of raising; `init(format:)`
///   traps with the same message, as Darwin's raises `NSInvalidArgumentException`.
/// - Block predicates (`NSPredicate(block:)`) are not provided: a store can never translate them to SQL.
public class NSPredicate: NSObject, @unchecked Sendable {
    /// The tree as built (its structure is what `subpredicates` and `predicateFormat` show).
    package let node: PredicateNode
    /// The flattened tree and its compiled form (see ``PreparedPredicate``): made when the predicate is
    /// made if it is shallow (a plain `let`, so that `evaluate(with:)` reads it without an atomic), else
    /// on first use, so that nesting `NSCompoundPredicate`s in code costs nothing per level.
    private let preparedEagerly: PreparedPredicate?
    private let preparation = AtomicLazyReference<PreparedPredicate>()
    /// The compiled form, when prepared eagerly (the hot path of evaluation).
    private let eagerlyCompiled: CompiledPredicate?

    package required init(node: PredicateNode) {
        self.node = node
        let eager = node.isShallow(within: 16) ? PreparedPredicate(node) : nil
        self.preparedEagerly = eager
        self.eagerlyCompiled = eager?.compiled
        super.init()
    }

    /// What every pass runs on.
    package var prepared: PreparedPredicate {
        if let preparedEagerly { return preparedEagerly }
        if let done = preparation.load() { return done }
        return preparation.storeIfNil(PreparedPredicate(node))
    }

    /// The tree a store or the evaluator runs, or the "too deeply nested" error.
    package func runnableNode() throws -> PredicateNode { try prepared.runnable() }

    private var compiled: CompiledPredicate? { preparedEagerly != nil ? eagerlyCompiled : prepared.compiled }

    /// Mirrors `NSPredicate(format:_:)`. Traps on a malformed format, printing where it broke; use
    /// ``init(validatingFormat:_:)`` for input you do not control.
    public convenience init(format predicateFormat: String, _ args: Any?...) {
        self.init(format: predicateFormat, argumentArray: args.map { $0 as Any })
    }

    /// Mirrors `NSPredicate(format:argumentArray:)`. Traps on a malformed format.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        do {
            self.init(node: try PredicateParser.parsePredicate(predicateFormat, arguments: arguments ?? []))
        } catch {
            fatalError("\(error)")
        }
    }

    /// Parses a format string, throwing a ``PredicateFormatError`` (with offset, expectation and a caret
    /// line) instead of trapping. Not in Core Data; the safe entry point for untrusted text.
    public convenience init(validatingFormat predicateFormat: String, _ args: Any?...) throws {
        try self.init(validatingFormat: predicateFormat, argumentArray: args.map { $0 as Any })
    }

    /// The throwing form of `NSPredicate(format:argumentArray:)`.
    public convenience init(validatingFormat predicateFormat: String, argumentArray arguments: [Any]?) throws {
        self.init(node: try PredicateParser.parsePredicate(predicateFormat, arguments: arguments ?? []))
    }

    /// Mirrors `NSPredicate(value:)`: `TRUEPREDICATE` or `FALSEPREDICATE`.
    public convenience init(value: Bool) {
        self.init(node: .constant(value))
    }

    /// Mirrors `predicateFormat`: the canonical format string. Parsing it again gives an equal predicate.
    /// A predicate nested deeper than ``PredicateNode/maximumNestingDepth`` prints its flattened form
    /// (nested `AND`s and `OR`s merged: equal in meaning), or, deeper still, a note saying so.
    public var predicateFormat: String {
        let prepared = self.prepared
        if prepared.rawIsShallow { return PredicatePrinter.format(node) }
        if let flat = prepared.node { return PredicatePrinter.format(flat) }
        return "<a predicate nested \(prepared.depth) levels deep, too deeply to print>"
    }

    /// Mirrors `withSubstitutionVariables(_:)`: replaces `$VARIABLE`s by constants.
    public func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        let bindings = variables.mapValues { Value(any: $0) }
        let prepared = self.prepared
        if prepared.rawIsShallow { return Self(node: node.substituting(bindings)) }
        // Too deep to walk as built: substitute in the flattened tree, or leave it (it cannot run anyway).
        return Self(node: prepared.node?.substituting(bindings) ?? node)
    }

    /// Mirrors `evaluate(with:)`. Like Darwin, which raises, this traps on an error that makes the predicate
    /// meaningless for the object (an unknown key of a managed object, an unbound `$VARIABLE`, `ANY` on
    /// something that is not a collection); ``evaluate(validating:substitutionVariables:)`` throws instead.
    public func evaluate(with object: Any?) -> Bool {
        evaluate(with: object, substitutionVariables: nil)
    }

    /// Mirrors `evaluate(with:)` for a `[String: Any]` known as one where it is called: the same answer,
    /// without the dynamic casts that an `Any` needs.
    public func evaluate(with object: [String: Any]) -> Bool {
        if let compiled, let result = compiled.evaluate(dictionary: object) { return result }
        return trapping { try evaluateInEvaluator(object, bindings: nil) }
    }

    /// `evaluate(with:)` for an object known to read its values without boxing (a managed object).
    package func evaluate(reader: PredicateValueReading) -> Bool {
        trapping { try evaluate(validatingReader: reader) }
    }

    /// The throwing form of ``evaluate(reader:)``.
    package func evaluate(validatingReader reader: PredicateValueReading) throws -> Bool {
        if let compiled, let result = compiled.evaluate(reader: reader) { return result }
        return try evaluateInEvaluator(reader, bindings: nil)
    }

    /// Mirrors `evaluate(with:substitutionVariables:)`. Traps on error, as ``evaluate(with:)``.
    public func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        trapping { try evaluate(validating: object, substitutionVariables: bindings) }
    }

    /// The throwing form of `evaluate(with:substitutionVariables:)`. Not in Core Data.
    public func evaluate(validating object: Any?, substitutionVariables bindings: [String: Any]? = nil) throws -> Bool {
        if let compiled, let result = compiled.evaluate(object) { return result }
        return try evaluateInEvaluator(object, bindings: bindings)
    }

    /// What the compiled form hands over: the general evaluator.
    private func evaluateInEvaluator(_ object: Any?, bindings: [String: Any]?) throws -> Bool {
        var evaluator = Evaluator(bindings: bindings.map { $0.mapValues { Value(any: $0) } } ?? [:])
        return try evaluator.evaluate(try runnableNode(), with: object)
    }

    /// Darwin raises where evaluation fails; Swift cannot catch that, so the non-throwing forms trap.
    private func trapping(_ body: () throws -> Bool) -> Bool {
        do { return try body() } catch { fatalError("\(error)") }
    }

    /// The parsed structure when it is a comparison (`name == "x"`), however the predicate was made.
    /// Not in Core Data: there `NSPredicate(format:)` returns an `NSComparisonPredicate` directly.
    public var comparisonPredicate: NSComparisonPredicate? {
        if case .comparison = node { return self as? NSComparisonPredicate ?? NSComparisonPredicate(node: node) }
        return nil
    }

    /// The parsed structure when it is `AND`, `OR` or `NOT`, however the predicate was made. Not in Core Data.
    public var compoundPredicate: NSCompoundPredicate? {
        switch node {
        case .and, .or, .not: return self as? NSCompoundPredicate ?? NSCompoundPredicate(node: node)
        default: return nil
        }
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        return other.node == node
    }

    public override var hash: Int { node.hashValue }

    /// The `predicateFormat`, as on Darwin.
    public override var description: String { predicateFormat }
}

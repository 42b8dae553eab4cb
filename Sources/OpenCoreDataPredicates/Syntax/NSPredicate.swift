import Foundation
import Synchronization

/// Mirrors Foundation's `NSPredicate`: a logical condition, made from a format string or built from
/// `NSComparisonPredicate` / `NSCompoundPredicate`, evaluated in memory or translated to SQL by a store.
///
/// `NSPredicate(format:)` returns the class Apple's parser returns — an ``NSComparisonPredicate``, an
/// ``NSCompoundPredicate``, or a plain `NSPredicate` for `TRUEPREDICATE`/`FALSEPREDICATE` — so `as?` and
/// `switch` on the type work (the initializers are in `NSPredicate+Format.swift`).
///
/// Differences from Darwin, each deliberate:
/// - Format arguments are `Any?` (Darwin: `CVarArg`), so arrays, sets and dates pass as they do on Darwin.
/// - ``init(validatingFormat:_:)`` throws a ``PredicateFormatError`` instead of raising; `init(format:)`
///   traps with the same message, as Darwin's raises `NSInvalidArgumentException`.
public class NSPredicate: NSObject, @unchecked Sendable {
    /// The tree as built (its structure is what `subpredicates` and `predicateFormat` show).
    package let node: PredicateNode
    /// The flattened tree and its compiled form (see ``PreparedPredicate``): made when the predicate is
    /// made if it is shallow (a plain `let`, so that `evaluate(with:)` reads it without an atomic), else
    /// on first use, so that nesting `NSCompoundPredicate`s in code costs nothing per level.
    private let preparedEagerly: PreparedPredicate?
    private let preparation = AtomicLazyReference<PreparedPredicate>()
    /// The compiled form, when prepared eagerly (the hot path of evaluation). `preparedEagerly` keeps it
    /// alive; held unretained so that an evaluation calls it without retaining and releasing it.
    private let eagerlyCompiled: Unmanaged<CompiledPredicate>?
    /// Set when the predicate was decoded from an archive: closed until ``allowEvaluation()``. Set only
    /// while the predicate is being made (decoding, ``withSubstitutionVariables(_:)``), before another
    /// thread can see it, so every evaluation reads it without the runtime's exclusivity check.
    @exclusivity(unchecked) package final var archiveGate: EvaluationGate?
    /// The objects its constants were made from, returned by `constantValue` (``GivenConstants``).
    package var givenConstants: GivenConstants?

    package required init(node: PredicateNode) {
        self.node = node
        let eager = node.isShallow(within: 16) ? PreparedPredicate(node) : nil
        self.preparedEagerly = eager
        self.eagerlyCompiled = eager?.compiled.map(Unmanaged.passUnretained)
        super.init()
    }

    /// What every pass runs on.
    package var prepared: PreparedPredicate {
        if let preparedEagerly { return preparedEagerly }
        if let done = preparation.load() { return done }
        return preparation.storeIfNil(PreparedPredicate(node))
    }

    /// The tree a store or the evaluator runs, or the "too deeply nested" error (or, for a predicate
    /// decoded from an archive whose evaluation was not allowed, ``PredicateEvaluationError`` saying so).
    package func runnableNode() throws -> PredicateNode {
        try checkEvaluationAllowed()
        return try prepared.runnable()
    }

    /// Throws unless the predicate may be evaluated (always, unless decoded and not yet allowed).
    package func checkEvaluationAllowed() throws {
        if let archiveGate, !archiveGate.isOpen { throw PredicateEvaluationError(.evaluationNotAllowed) }
    }

    /// Mirrors `allowEvaluation()`: a predicate decoded from an archive (``init(coder:)``) refuses to be
    /// evaluated — `evaluate(with:)` traps, `evaluate(validating:)` throws, a fetch fails — until this is
    /// called, as Apple's secure-coding model requires. It allows this predicate and every part reached from
    /// it (subpredicates, expressions); allowing a part alone leaves the whole refused, as on Darwin.
    public func allowEvaluation() { archiveGate?.open() }

    /// Mirrors `NSCoding`'s `init(coder:)` for a plain predicate (`TRUEPREDICATE` / `FALSEPREDICATE`,
    /// which Apple archives as the classes `NSTruePredicate` / `NSFalsePredicate`). Comparison and compound
    /// predicates decode through their own classes. See `Archiving/PredicateCoding.swift`.
    public required init?(coder: NSCoder) {
        guard let value = PredicateCoding.decodeConstantPredicate(coder) else { return nil }
        let node = PredicateNode.constant(value)
        self.node = node
        self.preparedEagerly = PreparedPredicate(node)
        self.eagerlyCompiled = preparedEagerly?.compiled.map(Unmanaged.passUnretained)
        self.archiveGate = EvaluationGate()
        super.init()
    }

    /// Mirrors `encode(with:)` (`NSCoding`): Apple's keys (see docs/Predicates.md, "Archiving"). A block
    /// predicate cannot be archived: the archiver's `error` is set, so `archivedData(withRootObject:…)`
    /// throws, where Darwin raises.
    public func encode(with coder: NSCoder) {
        PredicateCoding.encode(self, with: coder)
    }

    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`): `true`.
    public class var supportsSecureCoding: Bool { true }

    /// Mirrors `classForKeyedArchiver`: `TRUEPREDICATE` and `FALSEPREDICATE` are archived as the classes
    /// `NSTruePredicate` and `NSFalsePredicate`, as on Darwin, and a comparison or `AND`/`OR`/`NOT` as
    /// `NSComparisonPredicate` / `NSCompoundPredicate` however the predicate was made (a plain
    /// `NSPredicate` of such a structure, as this library makes for a model's validation).
    public override var classForKeyedArchiver: AnyClass? {
        switch node {
        case .constant(let value): return value ? NSTruePredicate.self : NSFalsePredicate.self
        case .comparison: return NSComparisonPredicate.self
        case .and, .or, .not: return NSCompoundPredicate.self
        case .block: return type(of: self)
        }
    }

    @inline(__always) private var compiled: CompiledPredicate? { preparedEagerly != nil ? eagerlyCompiled?.takeUnretainedValue() : prepared.compiled }

    /// What the compiled form answers with `run`, when the predicate may be evaluated without checks (it
    /// was not decoded from an archive): the first step of each `evaluate(with:)`. `nil` hands the object
    /// over to the checked path. A predicate compiled when made is called without a retain.
    @inline(__always) private func compiledAnswer(_ run: (CompiledPredicate) -> Bool?) -> Bool? {
        guard archiveGate == nil else { return nil }
        if let eagerlyCompiled { return eagerlyCompiled._withUnsafeGuaranteedRef(run) }
        return preparedEagerly == nil ? prepared.compiled.flatMap(run) : nil
    }

    /// Mirrors `NSPredicate(block:)`: a predicate that calls `block` with the evaluated object and the
    /// substitution variables (`nil` from ``evaluate(with:)-(Any?)``). It works wherever predicates are evaluated
    /// in memory — ``evaluate(with:)-(Any?)``, `filtered(using:)`, inside an ``NSCompoundPredicate`` — and, as in
    /// Core Data, not in a fetch from the SQLite store, which throws before running any SQL (the in-memory
    /// store evaluates it). Its `predicateFormat` is Darwin's `BLOCKPREDICATE(0x…)`, which does not parse.
    public convenience init(block: @escaping (Any?, [String: Any]?) -> Bool) {
        self.init(node: .block(PredicateBlock(block)))
    }

    /// Mirrors `NSPredicate(value:)`: `TRUEPREDICATE` or `FALSEPREDICATE`.
    public convenience init(value: Bool) {
        self.init(node: .constant(value))
    }

    /// Mirrors `predicateFormat`: the canonical format string. Parsing it again gives an equal predicate.
    /// A predicate nested deeper than `PredicateNode.maximumNestingDepth` prints its flattened form
    /// (nested `AND`s and `OR`s merged: equal in meaning), or, deeper still, a note saying so.
    public var predicateFormat: String {
        let prepared = self.prepared
        if prepared.rawIsShallow { return PredicatePrinter.format(node) }
        if let flat = prepared.node { return PredicatePrinter.format(flat) }
        return "<a predicate nested \(prepared.depth) levels deep, too deeply to print>"
    }

    /// Mirrors `withSubstitutionVariables(_:)`: replaces `$VARIABLE`s by constants (whose `constantValue` is
    /// the object given). The result of a predicate decoded from an archive refuses evaluation while this
    /// one does.
    public func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        let bindings = variables.mapValues { Value(any: $0) }
        let prepared = self.prepared
        // Too deep to walk as built: substitute in the flattened tree, or leave it (it cannot run anyway).
        let result = Self(node: prepared.rawIsShallow ? node.substituting(bindings)
                                                      : prepared.node?.substituting(bindings) ?? node)
        result.archiveGate = archiveGate?.copy()
        let given = variables.compactMap { GivenConstants.entry(for: $1, value: bindings[$0] ?? .null) }
        result.givenConstants = GivenConstants.combining(given, [givenConstants])
        return result
    }

    /// Mirrors `evaluate(with:)`. Like Darwin, which raises, this traps on an error that makes the predicate
    /// meaningless for the object (an unknown key of a managed object, an unbound `$VARIABLE`, `ANY` on
    /// something that is not a collection); ``evaluate(validating:substitutionVariables:)`` throws instead.
    public func evaluate(with object: Any?) -> Bool {
        // The compiled form first, without the closure and the bindings of the general path.
        if let result = compiledAnswer({ $0.evaluate(object) }) { return result }
        return evaluate(with: object, substitutionVariables: nil)
    }

    /// Mirrors `evaluate(with:)` for a `[String: Any]` known as one where it is called: the same answer,
    /// without the dynamic casts that an `Any` needs.
    public func evaluate(with object: [String: Any]) -> Bool {
        if archiveGate != nil { trapping { try checkEvaluationAllowed(); return true } }
        if let compiled, let result = compiled.evaluate(dictionary: object) { return result }
        return trapping { try evaluateInEvaluator(object, bindings: nil) }
    }

    /// `evaluate(with:)` for an object known to read its values without boxing (a managed object).
    package func evaluate(reader: PredicateValueReading) -> Bool {
        // No closure, no error path (a managed object passed as one is figure 9's hot path).
        if let result = compiledAnswer({ $0.evaluate(reader: reader) }) { return result }
        return trapping { try evaluate(validatingReader: reader) }
    }

    /// The throwing form of ``evaluate(reader:)``.
    package func evaluate(validatingReader reader: PredicateValueReading) throws -> Bool {
        try checkEvaluationAllowed()
        if let compiled, let result = compiled.evaluate(reader: reader) { return result }
        return try evaluateInEvaluator(reader, bindings: nil)
    }

    /// Mirrors `evaluate(with:substitutionVariables:)`. Traps on error, as ``evaluate(with:)-(Any?)``.
    public func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        trapping { try evaluate(validating: object, substitutionVariables: bindings) }
    }

    /// The throwing form of `evaluate(with:substitutionVariables:)`. Not in Core Data.
    public func evaluate(validating object: Any?, substitutionVariables bindings: [String: Any]? = nil) throws -> Bool {
        try checkEvaluationAllowed()
        if let compiled, let result = compiled.evaluate(object) { return result }
        return try evaluateInEvaluator(object, bindings: bindings)
    }

    /// What the compiled form hands over: the general evaluator.
    private func evaluateInEvaluator(_ object: Any?, bindings: [String: Any]?) throws -> Bool {
        var evaluator = Evaluator(bindings: bindings.map { $0.mapValues { Value(any: $0) } } ?? [:], given: bindings)
        return try evaluator.evaluate(try runnableNode(), with: object)
    }

    /// Darwin raises where evaluation fails; Swift cannot catch that, so the non-throwing forms trap.
    @discardableResult
    private func trapping(_ body: () throws -> Bool) -> Bool {
        do { return try body() } catch { fatalError("\(error)") }
    }

    /// The parsed structure when it is a comparison (`name == "x"`), however the predicate was made.
    /// Not in Core Data. Deprecated: `NSPredicate(format:)` returns an `NSComparisonPredicate` now, as on
    /// Darwin; write `predicate as? NSComparisonPredicate`.
    @available(*, deprecated, message: "NSPredicate(format:) returns an NSComparisonPredicate, as on Darwin: use `as? NSComparisonPredicate`")
    public var comparisonPredicate: NSComparisonPredicate? {
        if case .comparison = node { return self as? NSComparisonPredicate ?? NSComparisonPredicate(node: node) }
        return nil
    }

    /// The parsed structure when it is `AND`, `OR` or `NOT`, however the predicate was made. Not in Core Data.
    /// Deprecated: `NSPredicate(format:)` returns an `NSCompoundPredicate` now, as on Darwin.
    @available(*, deprecated, message: "NSPredicate(format:) returns an NSCompoundPredicate, as on Darwin: use `as? NSCompoundPredicate`")
    public var compoundPredicate: NSCompoundPredicate? {
        switch node {
        case .and, .or, .not: return self as? NSCompoundPredicate ?? NSCompoundPredicate(node: node)
        default: return nil
        }
    }

    /// `view`, a view of the part of this predicate's tree at `position`, with that part's archive
    /// permission (see ``EvaluationGate``) and the objects its constants were made from.
    package func part<T: NSPredicate>(_ view: T, at position: Int) -> T {
        view.archiveGate = archiveGate?.part(position)
        view.givenConstants = givenConstants
        return view
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        return other.node == node
    }

    public override var hash: Int { node.hashValue }

    /// The `predicateFormat`, as on Darwin.
    public override var description: String { predicateFormat }
}

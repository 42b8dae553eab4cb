import Foundation
import Synchronization

/// The implementations of custom selectors, for predicates made with
/// `NSComparisonPredicate(leftExpression:rightExpression:customSelector:)` (an addition of this library:
/// Darwin sends the selector to the left value by Objective-C dispatch, which Linux does not have).
///
/// Evaluating `left sel: right` runs the implementation registered under the selector's name with the left
/// expression's value as the receiver and the right expression's as the argument. A name not registered
/// falls back to the built-in implementations of Foundation's common one-argument methods returning `Bool`
/// (``builtIn``), each the same test as the predicate operator it corresponds to:
///
/// | selector | receiver | same as |
/// |---|---|---|
/// | `isEqual:`, `isEqualTo:` | any value | `==` |
/// | `isNotEqualTo:` | any value | `!=` |
/// | `isLessThan:`, `isLessThanOrEqualTo:`, `isGreaterThan:`, `isGreaterThanOrEqualTo:` | any value | `<`, `<=`, `>`, `>=` |
/// | `isEqualToString:`, `isEqualToNumber:`, `isEqualToDate:`, `isEqualToData:` | a string, number, date, data | `==` |
/// | `hasPrefix:`, `hasSuffix:`, `containsString:` | a string | `BEGINSWITH`, `ENDSWITH`, `CONTAINS` |
/// | `localizedCaseInsensitiveContainsString:`, `localizedStandardContainsString:` | a string | `CONTAINS[c]`, `CONTAINS[cd]` |
/// | `isLike:`, `isCaseInsensitiveLike:` | a string | `LIKE`, `LIKE[c]` |
/// | `containsObject:`, `doesContain:` | an array or a set | `CONTAINS` |
///
/// A `nil` receiver is an evaluation error ("cannot invoke the selector … on nil", as Darwin raises), and so
/// is a built-in selector sent to a receiver of another kind (Darwin: "unrecognized selector") or a
/// selector with no implementation. A registered implementation replaces the built-in one of its name;
/// ``unregister(_:)`` restores it.
public enum CustomSelectorRegistry {
    /// A selector's implementation: `receiver` is the left expression's value (never `nil`), `argument` the
    /// right expression's; numbers come as `NSNumber`, strings as `String`, collections as arrays and sets,
    /// objects as they are. An error it throws is the evaluation's error.
    public typealias Implementation = @Sendable (_ receiver: Any, _ argument: Any?) throws -> Bool

    private static let registered = Mutex<[String: Implementation]>([:])

    /// Registers `implementation` for `selector` (replacing an earlier registration or a built-in one).
    public static func register(_ selector: Selector, _ implementation: @escaping Implementation) {
        registered.withLock { $0[selector.name] = implementation }
    }

    /// Removes the implementation registered for `selector` (a built-in one of that name applies again).
    public static func unregister(_ selector: Selector) {
        _ = registered.withLock { $0.removeValue(forKey: selector.name) }
    }

    /// The selectors implemented without registration (see the table above).
    public static let builtIn: [Selector] = BuiltInSelector.table.keys.sorted().map { Selector($0) }

    /// `receiver selector: argument`, as a custom selector comparison evaluates it.
    package static func perform(_ selector: String?, _ receiver: Value, _ argument: Value) throws -> Bool {
        guard let selector else {
            throw PredicateEvaluationError(.customSelector("(none)", "a custom selector comparison without a selector"))
        }
        guard !receiver.isNull else {
            throw PredicateEvaluationError(.customSelector(selector, "cannot invoke the selector on nil"))
        }
        if let implementation = registered.withLock({ $0[selector] }) {
            return try implementation(receiver.anyValue as Any, argument.anyValue)
        }
        guard let builtIn = BuiltInSelector.table[selector] else {
            throw PredicateEvaluationError(.customSelector(selector, "no implementation is registered (CustomSelectorRegistry.register)"))
        }
        guard builtIn.receiver.accepts(receiver) else {
            throw PredicateEvaluationError(.customSelector(selector, "\(FunctionEvaluation.describe(receiver)) does not respond to it"))
        }
        return try ValueComparison.evaluate(receiver, builtIn.op, argument, builtIn.options)
    }
}

/// A built-in custom selector: the kind of receiver it is defined for and the operator it tests as.
struct BuiltInSelector {
    enum Receiver {
        case any, string, number, date, data, collection

        func accepts(_ value: Value) -> Bool {
            switch (self, value) {
            case (.any, _), (.string, .string), (.date, .date), (.data, .data): return true
            case (.number, _): return value.isNumber
            case (.collection, _): return value.collectionElements != nil
            default: return false
            }
        }
    }

    let receiver: Receiver
    let op: NSComparisonPredicate.Operator
    let options: NSComparisonPredicate.Options

    init(_ receiver: Receiver, _ op: NSComparisonPredicate.Operator, _ options: NSComparisonPredicate.Options = []) {
        self.receiver = receiver
        self.op = op
        self.options = options
    }

    static let table: [String: BuiltInSelector] = [
        "isEqual:": .init(.any, .equalTo), "isEqualTo:": .init(.any, .equalTo), "isNotEqualTo:": .init(.any, .notEqualTo),
        "isLessThan:": .init(.any, .lessThan), "isLessThanOrEqualTo:": .init(.any, .lessThanOrEqualTo),
        "isGreaterThan:": .init(.any, .greaterThan), "isGreaterThanOrEqualTo:": .init(.any, .greaterThanOrEqualTo),
        "isEqualToString:": .init(.string, .equalTo), "isEqualToNumber:": .init(.number, .equalTo),
        "isEqualToDate:": .init(.date, .equalTo), "isEqualToData:": .init(.data, .equalTo),
        "hasPrefix:": .init(.string, .beginsWith), "hasSuffix:": .init(.string, .endsWith),
        "containsString:": .init(.string, .contains),
        "localizedCaseInsensitiveContainsString:": .init(.string, .contains, .caseInsensitive),
        "localizedStandardContainsString:": .init(.string, .contains, [.caseInsensitive, .diacriticInsensitive]),
        "isLike:": .init(.string, .like), "isCaseInsensitiveLike:": .init(.string, .like, .caseInsensitive),
        "containsObject:": .init(.collection, .contains), "doesContain:": .init(.collection, .contains),
    ]
}

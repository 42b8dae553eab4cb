import Foundation
import Logging
import OpenCoreDataPredicates

extension NSPredicate {
    /// Mirrors `init?(_:)` with Foundation's `Predicate` (`#Predicate`): the same predicate tree a format
    /// string makes, so it runs in SQL and in memory with one meaning. Key paths are `@Managed` properties
    /// (through to-one relationships); comparisons, `&&` `||` `!`, `== nil`, `??`, `flatMap`, arithmetic,
    /// `String.contains` / `starts(with:)`, `contains(_:)` (`IN`), `contains(where:)` and `allSatisfy` over a
    /// to-many (`SUBQUERY`), `filter`, `.count` (`@count`), conditionals and captured values convert. What
    /// does not is `nil`, as Core Data returns, and the reason is logged (logger `OpenCoreData.Predicate`).
    public convenience init?<Input>(_ predicate: Predicate<Input>) where Input: NSObject {
        var conversion = PredicateConversion(input: predicate.variable.key)
        do {
            self.init(node: try conversion.predicate(predicate.expression))
        } catch {
            PredicateConversion.logger.warning("NSPredicate(_:): \(error)")
            return nil
        }
    }

    /// For OpenSwiftData: ``init(_:)`` over a root that is not a managed object class, with the key of each
    /// key path and the stored form of each captured value given by the caller. Throws why an expression
    /// does not convert.
    package static func converting<Input>(_ predicate: Predicate<Input>, keys: @escaping (AnyKeyPath) throws -> String,
                                          constants: @escaping (Any) -> Any) throws -> NSPredicate {
        var conversion = PredicateConversion(input: predicate.variable.key)
        conversion.keys = keys
        conversion.constants = constants
        return NSPredicate(node: try conversion.predicate(predicate.expression))
    }
}

/// Turns Foundation's predicate expressions into the predicate tree (`PredicateNode`).
struct PredicateConversion {
    static let logger = Logger(label: "OpenCoreData.Predicate")
    /// The predicate's own variable (`SELF`).
    let input: PredicateExpressions.VariableID
    /// A closure's variable: a `SUBQUERY` variable's name, or (in `flatMap`) the expression it stands for.
    var bound: [PredicateExpressions.VariableID: ExpressionNode] = [:]
    /// The key of a key path: `@Managed` properties by default (OpenSwiftData gives its models' names).
    var keys: (AnyKeyPath) throws -> String = { try ManagedKeyPaths.key(for: $0).get() }
    /// A captured value as the store compares it (OpenSwiftData gives a model's managed object).
    var constants: (Any) -> Any = { $0 }
    private var counter = 0

    init(input: PredicateExpressions.VariableID) { self.input = input }

    /// Why an expression does not convert.
    struct Unsupported: Error, CustomStringConvertible {
        let description: String
    }

    func unsupported(_ what: Any) -> Unsupported {
        Unsupported(description: "\(type(of: what)) has no NSPredicate equivalent here (\(what))")
    }

    /// A Boolean expression as a predicate (a Boolean value or key path compares `== YES`).
    mutating func predicate(_ expression: Any) throws -> PredicateNode {
        if let convertible = expression as? any PredicateNodeConvertible { return try convertible.predicateNode(&self) }
        return .comparison(ComparisonNode(try self.expression(expression), .equalTo, .constant(.bool(true))))
    }

    mutating func expression(_ expression: Any) throws -> ExpressionNode {
        guard let convertible = expression as? any ExpressionNodeConvertible else { throw unsupported(expression) }
        return try convertible.expressionNode(&self)
    }

    /// A fresh `SUBQUERY` variable for a closure's variable.
    mutating func bindSubqueryVariable(_ key: PredicateExpressions.VariableID) -> String {
        counter += 1
        let name = "v\(counter)"
        bound[key] = .variable(name)
        return name
    }
}

protocol PredicateNodeConvertible {
    func predicateNode(_ c: inout PredicateConversion) throws -> PredicateNode
}

protocol ExpressionNodeConvertible {
    func expressionNode(_ c: inout PredicateConversion) throws -> ExpressionNode
}

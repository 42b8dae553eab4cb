import Foundation

/// To-many relationships in predicates, as correlated subqueries over the relationship's rows (the
/// destination table, or the join table of a many-to-many), with the in-memory evaluator's semantics:
///
/// - `ANY zoos.name == "x"` is `EXISTS (… WHERE <row of t0> AND name = ?)`; `ALL` is `NOT EXISTS` of an
///   element that fails the comparison, so `ALL` over no elements is true (as in Core Data and in memory);
///   `NONE` is `NOT ANY`;
/// - `%@ IN zoos`, `zoos CONTAINS %@` (and `"x" IN zoos.name`) are `ANY` element equal to the value;
/// - `SUBQUERY(zoos, $z, …).@count` counts the elements that meet the predicate, `$z` being each one.
///
/// The element compared is a placeholder variable bound to the element's operand, so every comparison
/// operator, option and kind rule of a direct comparison applies to it unchanged.
extension PredicateTranslator {
    /// The variable name that stands for the element an `ANY`/`ALL` compares (not a valid `$name`).
    static let elementPlaceholder = "\u{1}element"

    /// The collection a key path gives through one to-many relationship (resolved by the plan), and the
    /// scope it is read from; `nil` for an expression that is not such a key path.
    mutating func collectionPath(_ node: ExpressionNode) throws -> (path: CollectionKeyPath, scope: Int)? {
        let s: Int
        let text: String
        switch node {
        case .keyPath(let path):
            guard groupColumns == nil else { return nil }
            (s, text) = (0, path)
        case .member(.variable(let name), let path):
            guard let found = scope(ofVariable: name), scopes[found].value == nil else { return nil }
            (s, text) = (found, path)
        default:
            return nil
        }
        return try keyPaths.collection(text, from: scopes[s].layout, named: scopes[s].entityName).map { ($0, s) }
    }

    /// `ANY`/`ALL` (and `NONE`, which is `NOT ANY`) over a to-many key path.
    mutating func quantified(_ c: ComparisonNode) throws -> SQLExpression {
        guard let found = try collectionPath(c.left) else {
            let name = c.modifier == .any ? "ANY" : "ALL"
            throw unsupported("\(name) needs a to-many key path on its left, not \(PredicatePrinter.format(c.left))")
        }
        var direct = c
        direct.modifier = .direct
        direct.left = .variable(Self.elementPlaceholder)
        return try exists(found, c.modifier == .all ? .all : .any, direct)
    }

    /// `%@ IN zoos`, `zoos CONTAINS %@`: some element of the collection equals `value`.
    mutating func contains(_ found: (path: CollectionKeyPath, scope: Int), _ value: ExpressionNode,
                           options: NSComparisonPredicate.Options) throws -> SQLExpression {
        try exists(found, .any, ComparisonNode(.variable(Self.elementPlaceholder), .equalTo, value, options: options))
    }

    private enum Quantifier { case any, all }

    /// Whether some element (`any`) or every element (`all`) of the collection meets `test`, a direct
    /// comparison whose placeholder variable stands for the element.
    private mutating func exists(_ found: (path: CollectionKeyPath, scope: Int), _ quantifier: Quantifier,
                                 _ test: ComparisonNode) throws -> SQLExpression {
        let owner = objectKey(found.path.owner[...], scope: found.scope)
        let inner = try openToMany(found.path.toMany, owner: owner.expression)
        let element = try value(of: found.path.element, scope: inner)
        scopes[inner].variable = Self.elementPlaceholder
        scopes[inner].value = element
        let condition = try comparison(test)
        switch quantifier {
        case .any:
            let subquery = closeScope(inner, .one, condition: condition)
            return condition == .literal(false) ? .literal(false) : .exists(subquery)
        case .all:
            // No element fails the comparison (two-valued: an element whose comparison is NULL fails).
            let failing: SQLExpression = condition == .literal(true) ? .literal(false)
                : condition == .literal(false) ? .literal(true) : .not(condition)
            let subquery = closeScope(inner, .one, condition: failing)
            return failing == .literal(false) ? .literal(true) : .not(.exists(subquery))
        }
    }

    /// `SUBQUERY(collection, $variable, predicate).@count`: the number of the collection's objects (each
    /// one `$variable`) that meet the predicate.
    mutating func subqueryCount(_ collection: ExpressionNode, _ variable: String, _ predicate: PredicateNode) throws -> Operand {
        guard let found = try collectionPath(collection) else {
            throw unsupported("SUBQUERY needs a to-many relationship as its collection, not \(PredicatePrinter.format(collection))")
        }
        guard found.path.element.hops.isEmpty, case .object = found.path.element.terminal else {
            throw unsupported("SUBQUERY over \(found.path.text): iterate the relationship's objects (SUBQUERY(\(found.path.toMany.name), $x, $x.\(found.path.element.text) …))")
        }
        let owner = objectKey(found.path.owner[...], scope: found.scope)
        let inner = try openToMany(found.path.toMany, owner: owner.expression, variable: variable)
        let condition = try self.condition(predicate)
        return Operand(expression: .scalar(closeScope(inner, .count, condition: condition)), kind: .number, nullable: false)
    }
}

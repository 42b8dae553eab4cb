import Foundation

/// The condition of a partial index (`NSFetchIndexDescription.partialIndexPredicate`): databases take no
/// bound values there, so constants are written into the text (``SQLExpression/constant(_:)``). The predicates it takes are what a
/// partial index can hold: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`) of a stored attribute or to-one
/// (`!= nil`) with a number, string, Boolean or `nil`, and `AND`, `OR`, `NOT` of them; anything else
/// (key paths through relationships, string options, functions) throws, naming the part refused.
enum PartialIndexWhere {
    static func condition(_ predicate: NSPredicate, _ layout: EntityLayout) throws -> SQLExpression {
        try clause(predicate.node, layout)
    }

    private static func clause(_ node: PredicateNode, _ layout: EntityLayout) throws -> SQLExpression {
        switch node {
        case .constant(let b): return .literal(b)
        case .and(let parts): return .and(try parts.map { try clause($0, layout) })
        case .or(let parts): return .or(try parts.map { try clause($0, layout) })
        case .not(let part): return .not(try clause(part, layout))
        case .comparison(let c): return try comparison(c, layout)
        case .block: throw refusal("a block predicate")
        }
    }

    private static func comparison(_ c: ComparisonNode, _ layout: EntityLayout) throws -> SQLExpression {
        let ops: [NSComparisonPredicate.Operator: SQLComparisonOperator] = [
            .equalTo: .equal, .notEqualTo: .notEqual, .lessThan: .lessThan, .lessThanOrEqualTo: .lessThanOrEqual,
            .greaterThan: .greaterThan, .greaterThanOrEqualTo: .greaterThanOrEqual]
        guard c.modifier == .direct, c.options.isEmpty, let op = ops[c.op],
              case .keyPath(let key) = c.left, case .constant(let value) = c.right else {
            throw refusal("the comparison \(PredicatePrinter.format(PredicateNode.comparison(c)))")
        }
        let column = try self.column(key, layout)
        if case .null = value {
            switch c.op {
            case .equalTo: return .isNull(.name(column))
            case .notEqualTo: return .isNotNull(.name(column))
            default: throw refusal("an order comparison with nil")
            }
        }
        return .compare(.name(column), op, try constant(value))
    }

    private static func column(_ key: String, _ layout: EntityLayout) throws -> String {
        guard let slot = layout.slotByName[key] else { throw refusal("the key \(key), no property of the entity") }
        if let column = layout.columns[slot] { return column }
        if case .toOne(let r) = layout.kinds[slot], case .foreignKey(let column, _) = r.storage { return column }
        throw refusal("the key \(key), which has no column")
    }

    private static func constant(_ value: Value) throws -> SQLExpression {
        switch value {
        case .bool, .int, .string: return .constant(value)
        case .double(let d) where d.isFinite: return .constant(value)
        default: throw refusal("the constant \(value)")
        }
    }

    private static func refusal(_ what: String) -> CoreDataError {
        CoreDataError(NSCoreDataError, "a partial index predicate cannot hold \(what)")
    }
}

import Foundation

/// The `WHERE` clause of a partial index (`NSFetchIndexDescription.partialIndexPredicate`): SQLite takes
/// no bound values there, so constants are written as literals. The predicates it takes are what a
/// partial index can hold: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`) of a stored attribute or to-one
/// (`!= nil`) with a number, string, Boolean or `nil`, and `AND`, `OR`, `NOT` of them; anything else
/// (key paths through relationships, string options, functions) throws, naming the part refused.
enum PartialIndexWhere {
    static func sql(_ predicate: NSPredicate, _ layout: EntityLayout) throws -> String {
        try clause(predicate.node, layout)
    }

    private static func clause(_ node: PredicateNode, _ layout: EntityLayout) throws -> String {
        switch node {
        case .constant(let b): return b ? "1" : "0"
        case .and(let parts): return "(" + (try parts.map { try clause($0, layout) }).joined(separator: " AND ") + ")"
        case .or(let parts): return "(" + (try parts.map { try clause($0, layout) }).joined(separator: " OR ") + ")"
        case .not(let part): return "NOT " + (try clause(part, layout))
        case .comparison(let c): return try comparison(c, layout)
        case .block: throw refusal("a block predicate")
        }
    }

    private static func comparison(_ c: ComparisonNode, _ layout: EntityLayout) throws -> String {
        let ops: [NSComparisonPredicate.Operator: String] = [.equalTo: "=", .notEqualTo: "<>", .lessThan: "<",
                                                             .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">="]
        guard c.modifier == .direct, c.options.isEmpty, let op = ops[c.op],
              case .keyPath(let key) = c.left, case .constant(let value) = c.right else {
            throw refusal("the comparison \(PredicatePrinter.format(PredicateNode.comparison(c)))")
        }
        let column = try self.column(key, layout)
        if case .null = value {
            switch c.op {
            case .equalTo: return "\(column) IS NULL"
            case .notEqualTo: return "\(column) IS NOT NULL"
            default: throw refusal("an order comparison with nil")
            }
        }
        return "\(column) \(op) \(try literal(value))"
    }

    private static func column(_ key: String, _ layout: EntityLayout) throws -> String {
        guard let slot = layout.slotByName[key] else { throw refusal("the key \(key), no property of the entity") }
        if let column = layout.columns[slot] { return column }
        if case .toOne(let r) = layout.kinds[slot], case .foreignKey(let column, _) = r.storage { return column }
        throw refusal("the key \(key), which has no column")
    }

    private static func literal(_ value: Value) throws -> String {
        switch value {
        case .bool(let b): return b ? "1" : "0"
        case .int(let i): return String(i)
        case .double(let d) where d.isFinite: return String(d)
        case .string(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        default: throw refusal("the constant \(value)")
        }
    }

    private static func refusal(_ what: String) -> CoreDataError {
        CoreDataError(NSCoreDataError, "a partial index predicate cannot hold \(what)")
    }
}

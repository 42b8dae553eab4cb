import Foundation

/// The check of a fetch's `havingPredicate` against the keys of its dictionary fetch: every key path
/// (`count > 1`) and variable (`$count > 1`) must name a key of `propertiesToGroupBy` or
/// `propertiesToFetch` (a key path as given, or an expression description's name), and the predicate may
/// use only what a group has one value of: constants, those names, functions of them, `TERNARY`, and
/// direct comparisons (no `ANY`/`ALL`, `SUBQUERY`, to-many collections or blocks).
enum HavingPredicate {
    /// `predicate` checked, with the columns its names stand for; throws naming the entity and the key.
    static func resolve(_ predicate: NSPredicate, names: [String: DictionaryColumns.Column],
                        entityName: String) throws -> DictionaryColumns.Having {
        let node: PredicateNode
        do {
            node = try predicate.runnableNode()
        } catch let error as PredicateEvaluationError {
            throw CoreDataError(NSCoreDataError, "cannot fetch entity \(entityName): havingPredicate: \(error)")
        }
        let checker = Checker(names: names, entityName: entityName, format: predicate.predicateFormat)
        try checker.check(node)
        return DictionaryColumns.Having(predicate: node, names: names)
    }

    private struct Checker {
        let names: [String: DictionaryColumns.Column]
        let entityName: String
        let format: String

        func check(_ node: PredicateNode) throws {
            switch node {
            case .constant: return
            case .and(let parts), .or(let parts): try parts.forEach(check)
            case .not(let inner): try check(inner)
            case .block: throw refused("a block predicate")
            case .comparison(let c):
                guard c.modifier == .direct else { throw refused("ANY/ALL") }
                try check(c.left)
                try check(c.right)
            }
        }

        func check(_ node: ExpressionNode) throws {
            switch node {
            case .constant: return
            case .keyPath(let key), .variable(let key):
                guard names[key] != nil else {
                    throw CoreDataError(NSCoreDataError, "keypath \(key) in the havingPredicate of a fetch of entity \(entityName) is neither a key of propertiesToGroupBy nor of propertiesToFetch (a key path, or an NSExpressionDescription's name): \(format)",
                                        userInfo: [NSValidationKeyErrorKey: key])
                }
            case .function(let name, let args):
                guard !["sum:", "min:", "max:", "average:", "count:"].contains(name) else {
                    throw refused("the aggregate \(name) (fetch it with an NSExpressionDescription in propertiesToFetch and name that)")
                }
                try args.forEach(check)
            case .aggregate(let items): try items.forEach(check)
            case .conditional(let p, let t, let f):
                try check(p)
                try check(t)
                try check(f)
            case .subquery: throw refused("SUBQUERY")
            case .member(_, let key): throw refused("the key path \(key) on a value")
            case .evaluatedObject: throw refused("SELF")
            case .anyKey, .symbol, .setOperation, .fetch: throw refused(PredicatePrinter.format(node))
            }
        }

        func refused(_ what: String) -> CoreDataError {
            CoreDataError(NSCoreDataError, "unsupported in the havingPredicate of a fetch of entity \(entityName): \(what), in \(format)")
        }
    }
}

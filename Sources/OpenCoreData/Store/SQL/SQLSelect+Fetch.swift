import Foundation

/// What a fetch's statement selects from the rows that match its plan. The kind decides the order's
/// last term: rows of objects tie-break by store key, as in memory; counts and dictionaries do not.
enum FetchSelection {
    /// The columns (and `GROUP BY` terms, `nil` for none, and the `HAVING` condition) of a dictionary fetch, made by the translator,
    /// which joins the tables their key paths cross.
    typealias Projection = (inout PredicateTranslator) throws -> (columns: [SQLExpression], groupBy: [SQLExpression]?, having: SQLExpression?)

    /// Rows of objects: these columns of the fetched entity's table (`t0`), ordered by the sort
    /// descriptors, then by `t0.Z_PK`.
    case objects([SQLExpression])
    /// The number of matching rows: of the ordered window when the plan has a limit or an offset.
    case count
    /// A dictionary fetch: the projection's columns, `DISTINCT` if asked, ordered by the sort descriptors
    /// alone.
    case dictionaries(distinct: Bool, Projection)

    /// Whether the rows come in the sort descriptors' order (a count's order does not matter).
    var isOrdered: Bool {
        if case .count = self { return false }
        return true
    }

    /// Whether rows whose sort keys tie come in store key order, as objects do in memory (dictionaries
    /// and counts have no key to order by).
    var breaksTiesByKey: Bool {
        if case .objects = self { return true }
        return false
    }

    /// The fetched rows' key, entity number and version: `t0.Z_PK`, `t0.Z_ENT`, `t0.Z_OPT`.
    static var key: SQLExpression { .column(alias: SQLGenerationContext.rootAlias, name: "Z_PK") }
    static var entity: SQLExpression { .column(alias: SQLGenerationContext.rootAlias, name: "Z_ENT") }
    static var version: SQLExpression { .column(alias: SQLGenerationContext.rootAlias, name: "Z_OPT") }
}

extension SQLSelect {
    /// The statement of a fetch: `selection` from the plan's table (`t0`) and the tables its key paths
    /// join, rows of the plan's entities that meet its predicate, its sort descriptors as the order, and
    /// its `fetchLimit`/`fetchOffset` as the window when `limited`. The key paths are the ones the plan
    /// resolved; every value of the predicate is a bound parameter.
    init(fetching plan: FetchPlan, _ selection: FetchSelection, limited: Bool) throws {
        let windowed = plan.limit > 0 || plan.offset > 0
        if case .count = selection, windowed {
            self.init(selection: .count, source: .select(try SQLSelect(fetching: plan, .objects([FetchSelection.key]), limited: true)))
            return
        }
        var translator = PredicateTranslator(plan)
        var columns = Selection.count
        var distinct = false
        var groupBy: [SQLExpression] = []
        var having: SQLExpression? = nil
        switch selection {
        case .objects(let list): columns = .columns(list)
        case .count: break
        case .dictionaries(let isDistinct, let projection):
            let projected = try projection(&translator)
            (columns, distinct, groupBy, having) = (.columns(projected.columns), isDistinct, projected.groupBy ?? [], projected.having)
        }
        let condition = try plan.predicate.map { try translator.condition($0) }
        var orderBy: [Ordering] = selection.isOrdered ? try plan.sorts.map { s in
            let value = try translator.value(of: s.keyPath, scope: 0).expression
            return Ordering(expression: s.isString ? .collate(value, s.collation) : value, ascending: s.ascending)
        } : []
        if selection.breaksTiesByKey { orderBy.append(Ordering(expression: FetchSelection.key, ascending: true)) }
        self.init(distinct: distinct, selection: columns, source: .table(plan.layout.tableName, alias: SQLGenerationContext.rootAlias),
                  joins: translator.context.joins, conditions: Self.conditions(plan, condition), groupBy: groupBy,
                  having: having, orderBy: orderBy)
        if limited, windowed {
            limit = plan.limit > 0 ? plan.limit : nil
            offset = plan.offset > 0 ? plan.offset : nil
        }
    }

    /// The row's entity among the plan's (when the table holds others too), then the predicate's condition.
    private static func conditions(_ plan: FetchPlan, _ condition: SQLExpression?) -> [SQLExpression] {
        var conditions: [SQLExpression] = []
        if let ids = plan.entityIDs {
            let entity = FetchSelection.entity
            conditions.append(ids.count == 1 ? .compare(entity, .equal, .integer(ids[0])) : .inList(entity, ids.map { .integer($0) }))
        }
        if let condition, condition != .literal(true) { conditions.append(condition) }
        return conditions
    }
}

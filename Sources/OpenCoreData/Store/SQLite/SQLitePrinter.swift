import Foundation

/// Renders a ``SQLSelect`` or a ``SQLExpression`` as SQLite text, binding its values through the ``SQLGenerationContext``
/// (one `?` per value, in text order):
///
/// - truth values are `1`/`0`; two-valued `NOT p` is `NOT COALESCE(p, 0)`;
/// - null-safe equality is `IS` / `IS NOT`;
/// - functions use the names ``SQLiteFunctions`` registers (`ocd_fold(x, 3)`, `ocd_contains(a, b, 1)`,
///   `ocd_upper(x)`, …; options as an integer literal), `abs:` SQLite's `abs`;
/// - division is real: `(CAST(a AS REAL) / b)`;
/// - collations are the registered ones (`x COLLATE ocd_localized`; none for `compare:`, SQLite's `BINARY`);
/// - to-one joins are `LEFT OUTER JOIN`s, subqueries `EXISTS (SELECT 1 …)` or `(SELECT COUNT(*) …)`;
///   `@sum` of no rows is `COALESCE(SUM(x), 0)`, as in memory;
/// - a long `AND`/`OR` list is grouped into a balanced tree of groups of at most 16, because SQLite
///   parses a chain as nested binary operators and refuses expressions deeper than 1,000.
enum SQLitePrinter {
    /// The SQLite text of `expression`; its values are appended to `context`'s arguments.
    static func sql(_ expression: SQLExpression, _ context: inout SQLGenerationContext) -> String {
        switch expression {
        case .column(let alias, let name): return "\(alias).\(name)"
        case .name(let name): return name
        case .parameter(let value):
            _ = context.bind(value)
            return "?"
        case .placeholder:
            _ = context.placeholder()
            return "?"
        case .constant(let value): return value.sqlConstant
        case .null: return "NULL"
        case .literal(let b): return b ? "1" : "0"
        case .integer(let i): return String(i)
        case .compare(let l, let op, let r):
            let left = sql(l, &context)
            return "\(left) \(op.sqlText) \(sql(r, &context))"
        case .isNull(let x): return "\(sql(x, &context)) IS NULL"
        case .isNotNull(let x): return "\(sql(x, &context)) IS NOT NULL"
        case .isNotDistinct(let l, let r):
            let left = sql(l, &context)
            return "\(left) IS \(sql(r, &context))"
        case .isDistinct(let l, let r):
            let left = sql(l, &context)
            return "\(left) IS NOT \(sql(r, &context))"
        case .and(let parts): return junction(parts, " AND ", empty: "1", &context)
        case .or(let parts): return junction(parts, " OR ", empty: "0", &context)
        case .not(.exists(let subquery)): return "NOT EXISTS (\(select(subquery, &context)))"
        case .not(let x): return "NOT COALESCE(\(sql(x, &context)), 0)"
        case .function(let f, let args):
            let list = args.map { sql($0, &context) } + (options(f).map { ["\($0.rawValue)"] } ?? [])
            return "\(name(f))(\(list.joined(separator: ", ")))"
        case .arithmetic(let l, let op, let r):
            let left = sql(l, &context), right = sql(r, &context)
            switch op {
            case .add: return "(\(left) + \(right))"
            case .subtract: return "(\(left) - \(right))"
            case .multiply: return "(\(left) * \(right))"
            case .divide: return "(CAST(\(left) AS REAL) / \(right))"
            }
        case .caseWhen(let condition, let a, let b):
            let test = sql(condition, &context), then = sql(a, &context)
            return "CASE WHEN \(test) THEN \(then) ELSE \(sql(b, &context)) END"
        case .inList(let x, let items):
            let element = sql(x, &context)
            return "\(element) IN (\(items.map { sql($0, &context) }.joined(separator: ", ")))"
        case .collate(let x, let collation):
            let text = sql(x, &context)
            guard let name = SQLiteFunctions.collationName(collation) else { return text }
            return "\(text) COLLATE \(name)"
        case .exists(let subquery): return "EXISTS (\(select(subquery, &context)))"
        case .scalar(let subquery): return "(\(select(subquery, &context)))"
        }
    }

    /// The SQLite text of a whole statement; its values are appended to `context`'s arguments, in text
    /// order. A window without a limit is `LIMIT -1 OFFSET n` (SQLite needs a `LIMIT` before `OFFSET`).
    static func sql(_ select: SQLSelect, _ context: inout SQLGenerationContext) -> String {
        var text = select.distinct ? "SELECT DISTINCT " : "SELECT "
        switch select.selection {
        case .columns(let columns): text += columns.map { sql($0, &context) }.joined(separator: ", ")
        case .count: text += "COUNT(*)"
        }
        switch select.source {
        case .table(let name, let alias): text += " FROM \(name) \(alias)"
        case .select(let inner): text += " FROM (\(sql(inner, &context)))"
        }
        text += joins(select.joins, &context)
        if !select.conditions.isEmpty {
            text += " WHERE " + select.conditions.map { sql($0, &context) }.joined(separator: " AND ")
        }
        if !select.groupBy.isEmpty {
            text += " GROUP BY " + select.groupBy.map { sql($0, &context) }.joined(separator: ", ")
        }
        if let having = select.having { text += " HAVING " + sql(having, &context) }
        if !select.orderBy.isEmpty {
            text += " ORDER BY " + select.orderBy.enumerated().map { i, term in
                (i == 0 && select.sortsWithoutIndex ? "+" : "") + sql(term.expression, &context) + (term.ascending ? "" : " DESC")
            }.joined(separator: ", ")
        }
        if select.limit != nil || select.offset != nil {
            text += " LIMIT \(select.limit ?? -1)"
            if let offset = select.offset { text += " OFFSET \(offset)" }
        }
        return text
    }

    /// The joins after `FROM table t0`, each with a leading space:
    /// ` LEFT OUTER JOIN ZCLASSIFICATION t1 ON t0.ZCLASSIFICATION = t1.Z_PK`.
    static func joins(_ joins: [SQLJoin], _ context: inout SQLGenerationContext) -> String {
        joins.map { join in
            let kind = join.kind == .inner ? "JOIN" : "LEFT OUTER JOIN"
            return " \(kind) \(join.table) \(join.alias) ON \(sql(join.key, &context)) = \(join.alias).Z_PK"
        }.joined()
    }

    /// A subquery's `SELECT`, without parentheses: `SELECT COUNT(*) FROM Z_1ZOOS t2 WHERE t2.Z_1ANIMALS = t0.Z_PK`.
    static func select(_ subquery: SQLSubquery, _ context: inout SQLGenerationContext) -> String {
        let selection: String
        switch subquery.selection {
        case .one: selection = "1"
        case .count: selection = "COUNT(*)"
        case .sum(let x): selection = "COALESCE(SUM(\(sql(x, &context))), 0)"
        case .average(let x): selection = "AVG(\(sql(x, &context)))"
        case .minimum(let x): selection = "MIN(\(sql(x, &context)))"
        case .maximum(let x): selection = "MAX(\(sql(x, &context)))"
        }
        var text = "SELECT \(selection) FROM \(subquery.table) \(subquery.alias)" + joins(subquery.joins, &context)
        text += " WHERE " + sql(subquery.correlation, &context)
        if let condition = subquery.condition { text += " AND " + sql(condition, &context) }
        return text
    }

    /// The registered (or built-in) name of a function.
    private static func name(_ f: SQLFunction) -> String {
        switch f {
        case .fold: return SQLiteFunctions.Function.fold.name
        case .beginsWith: return SQLiteFunctions.Function.beginsWith.name
        case .endsWith: return SQLiteFunctions.Function.endsWith.name
        case .contains: return SQLiteFunctions.Function.contains.name
        case .like: return SQLiteFunctions.Function.like.name
        case .matches: return SQLiteFunctions.Function.matches.name
        case .upper: return SQLiteFunctions.Function.upper.name
        case .lower: return SQLiteFunctions.Function.lower.name
        case .utf16Length: return SQLiteFunctions.Function.utf16Length.name
        case .abs: return "abs"
        case .sum: return "SUM"
        case .min: return "MIN"
        case .max: return "MAX"
        case .average: return "AVG"
        case .count: return "COUNT"
        }
    }

    /// The `[c]`/`[d]` options a function takes as its last argument.
    private static func options(_ f: SQLFunction) -> NSComparisonPredicate.Options? {
        switch f {
        case .fold(let o), .beginsWith(let o), .endsWith(let o), .contains(let o), .like(let o), .matches(let o): return o
        case .upper, .lower, .utf16Length, .abs, .sum, .min, .max, .average, .count: return nil
        }
    }

    /// `(a AND b AND …)`, grouped into a balanced tree of at most 16 per group.
    private static func junction(_ parts: [SQLExpression], _ separator: String, empty: String,
                                 _ context: inout SQLGenerationContext) -> String {
        guard !parts.isEmpty else { return empty }
        return grouped(parts.map { sql($0, &context) }[...], separator)
    }

    private static func grouped(_ pieces: ArraySlice<String>, _ separator: String) -> String {
        guard pieces.count > 16 else { return "(" + pieces.joined(separator: separator) + ")" }
        let middle = pieces.startIndex + pieces.count / 2
        return "(" + grouped(pieces[..<middle], separator) + separator + grouped(pieces[middle...], separator) + ")"
    }
}

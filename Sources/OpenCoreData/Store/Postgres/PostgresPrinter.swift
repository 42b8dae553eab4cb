import Foundation

/// Renders a ``SQLSelect`` or a ``SQLExpression`` as PostgreSQL text, binding its values through the
/// ``SQLGenerationContext`` as numbered placeholders (`$1`, `$2`, … in text order):
///
/// - truth values are `TRUE`/`FALSE`; two-valued `NOT p` is `NOT COALESCE(p, FALSE)`;
/// - null-safe equality is `IS NOT DISTINCT FROM` / `IS DISTINCT FROM`;
/// - division is real: `(CAST(a AS DOUBLE PRECISION) / b)`;
/// - a string sorted by `compare:` is `x COLLATE "C"` (code point order of the NFC text the store keeps,
///   as Swift orders it in memory);
/// - `NULL` sorts first (`NULLS FIRST`, `DESC NULLS LAST`), as in memory;
/// - a window without a limit is `OFFSET n` alone.
///
/// What PostgreSQL cannot compute exactly as memory does — the `[c]`/`[d]`-folding string tests,
/// `BEGINSWITH`/`ENDSWITH`/`CONTAINS`/`LIKE`/`MATCHES`, `uppercase:`/`lowercase:`/`length:`, and the other
/// collations (SQLite runs the library's Swift for them) — throws ``PostgresPrinter/Unsupported``
/// (docs/PostgreSQL.md, "What differs").
enum PostgresPrinter {
    /// An expression this printer cannot make agree with in-memory evaluation.
    struct Unsupported: Error, CustomStringConvertible {
        let what: String
        var description: String { what }
    }

    static func sql(_ expression: SQLExpression, _ context: inout SQLGenerationContext) throws -> String {
        switch expression {
        case .column(let alias, let name): return "\(alias).\(name)"
        case .name(let name): return name
        case .parameter(let value): return "$\(context.bind(value))"
        case .placeholder: return "$\(context.placeholder())"
        case .constant(let value): return value.sqlConstant
        case .null: return "NULL"
        case .literal(let b): return b ? "TRUE" : "FALSE"
        case .integer(let i): return String(i)
        case .compare(let l, let op, let r):
            let left = try sql(l, &context)
            return "\(left) \(op.sqlText) \(try sql(r, &context))"
        case .isNull(let x): return "\(try sql(x, &context)) IS NULL"
        case .isNotNull(let x): return "\(try sql(x, &context)) IS NOT NULL"
        case .isNotDistinct(let l, let r):
            let left = try sql(l, &context)
            return "\(left) IS NOT DISTINCT FROM \(try sql(r, &context))"
        case .isDistinct(let l, let r):
            let left = try sql(l, &context)
            return "\(left) IS DISTINCT FROM \(try sql(r, &context))"
        case .and(let parts): return try junction(parts, " AND ", empty: "TRUE", &context)
        case .or(let parts): return try junction(parts, " OR ", empty: "FALSE", &context)
        case .not(.exists(let subquery)): return "NOT EXISTS (\(try select(subquery, &context)))"
        case .not(let x): return "NOT COALESCE(\(try sql(x, &context)), FALSE)"
        case .function(let f, let args): return try function(f, args, &context)
        case .arithmetic(let l, let op, let r):
            let left = try sql(l, &context), right = try sql(r, &context)
            switch op {
            case .add: return "(\(left) + \(right))"
            case .subtract: return "(\(left) - \(right))"
            case .multiply: return "(\(left) * \(right))"
            case .divide: return "(CAST(\(left) AS DOUBLE PRECISION) / \(right))"
            }
        case .caseWhen(let condition, let a, let b):
            let test = try sql(condition, &context), then = try sql(a, &context)
            return "CASE WHEN \(test) THEN \(then) ELSE \(try sql(b, &context)) END"
        case .inList(let x, let items):
            let element = try sql(x, &context)
            return "\(element) IN (\(try items.map { try sql($0, &context) }.joined(separator: ", ")))"
        case .collate(let x, let collation):
            guard collation == .compare else { throw Unsupported(what: "sorting by \(collation.rawValue)") }
            return "\(try sql(x, &context)) COLLATE \"C\""
        case .exists(let subquery): return "EXISTS (\(try select(subquery, &context)))"
        case .scalar(let subquery): return "(\(try select(subquery, &context)))"
        }
    }

    /// The PostgreSQL text of a whole statement; its values are appended to `context`'s arguments.
    static func sql(_ select: SQLSelect, _ context: inout SQLGenerationContext) throws -> String {
        var text = select.distinct ? "SELECT DISTINCT " : "SELECT "
        switch select.selection {
        case .columns(let columns): text += try columns.map { try sql($0, &context) }.joined(separator: ", ")
        case .count: text += "COUNT(*)"
        }
        switch select.source {
        case .table(let name, let alias): text += " FROM \(name) \(alias)"
        case .select(let inner): text += " FROM (\(try sql(inner, &context))) w"
        }
        text += try joins(select.joins, &context)
        if !select.conditions.isEmpty {
            text += " WHERE " + (try select.conditions.map { try sql($0, &context) }.joined(separator: " AND "))
        }
        if !select.groupBy.isEmpty {
            text += " GROUP BY " + (try select.groupBy.map { try sql($0, &context) }.joined(separator: ", "))
        }
        if let having = select.having { text += " HAVING " + (try sql(having, &context)) }
        if !select.orderBy.isEmpty {
            // NULL sorts before every value, as in memory and in SQLite (PostgreSQL's default puts it last).
            text += " ORDER BY " + (try select.orderBy.map { try sql($0.expression, &context) + ($0.ascending ? " NULLS FIRST" : " DESC NULLS LAST") }
                .joined(separator: ", "))
        }
        if let limit = select.limit { text += " LIMIT \(limit)" }
        if let offset = select.offset { text += " OFFSET \(offset)" }
        return text
    }

    static func joins(_ joins: [SQLJoin], _ context: inout SQLGenerationContext) throws -> String {
        try joins.map { join in
            let kind = join.kind == .inner ? "JOIN" : "LEFT OUTER JOIN"
            return " \(kind) \(join.table) \(join.alias) ON \(try sql(join.key, &context)) = \(join.alias).Z_PK"
        }.joined()
    }

    static func select(_ subquery: SQLSubquery, _ context: inout SQLGenerationContext) throws -> String {
        let selection: String
        switch subquery.selection {
        case .one: selection = "1"
        case .count: selection = "COUNT(*)"
        case .sum(let x): selection = "COALESCE(SUM(\(try sql(x, &context))), 0)"
        case .average(let x): selection = "AVG(\(try sql(x, &context)))"
        case .minimum(let x): selection = "MIN(\(try sql(x, &context)))"
        case .maximum(let x): selection = "MAX(\(try sql(x, &context)))"
        }
        var text = "SELECT \(selection) FROM \(subquery.table) \(subquery.alias)" + (try joins(subquery.joins, &context))
        text += " WHERE " + (try sql(subquery.correlation, &context))
        if let condition = subquery.condition { text += " AND " + (try sql(condition, &context)) }
        return text
    }

    /// `abs:` and the aggregates, which PostgreSQL computes as memory does; the string functions throw.
    private static func function(_ f: SQLFunction, _ args: [SQLExpression], _ context: inout SQLGenerationContext) throws -> String {
        let name: String
        switch f {
        case .abs: name = "abs"
        case .sum: name = "SUM"
        case .min: name = "MIN"
        case .max: name = "MAX"
        case .average: name = "AVG"
        case .count: name = "COUNT"
        case .fold, .beginsWith, .endsWith, .contains, .like, .matches, .upper, .lower, .utf16Length:
            throw Unsupported(what: "the string operation \(f)")
        }
        return "\(name)(\(try args.map { try sql($0, &context) }.joined(separator: ", ")))"
    }

    private static func junction(_ parts: [SQLExpression], _ separator: String, empty: String,
                                 _ context: inout SQLGenerationContext) throws -> String {
        guard !parts.isEmpty else { return empty }
        return "(" + (try parts.map { try sql($0, &context) }.joined(separator: separator)) + ")"
    }
}

import Foundation

/// A SQL expression, independent of the database that runs it: the predicate translator builds it, a
/// dialect's printer renders it (``SQLitePrinter`` for SQLite; another database needs only another
/// printer). Values are never in the tree as text: a ``parameter(_:)`` is bound by the printer, in
/// placeholder order, through ``SQLGenerationContext``.
///
/// Conditions here use two-valued logic where the case says so: ``not(_:)`` is true when its operand is
/// false *or* `NULL`, as `NOT p` is in memory.
package indirect enum SQLExpression: Hashable {
    /// A column of the table with the given alias (`t0.ZNAME`).
    case column(alias: String, name: String)
    /// A column of a statement's one table, named bare (`ZNAME` in an `UPDATE`, a `DELETE`, an index's
    /// condition).
    case name(String)
    /// A bound value (a placeholder in the text); never `.null` (see ``null``).
    case parameter(Value)
    /// A placeholder whose value each run of a prepared statement binds (statements run for many rows).
    case placeholder
    /// A value written into the text, where the database takes no bound values (a partial index's
    /// condition): a number, a string, a truth value. Everywhere else values are ``parameter(_:)``s.
    case constant(Value)
    /// The `NULL` literal.
    case null
    /// A literal truth value (`1`/`0` in SQLite, `TRUE`/`FALSE` elsewhere).
    case literal(Bool)
    /// A number of the schema in the text (an entity number, `t0.Z_ENT = 2`): never a value of a request,
    /// which is a ``parameter(_:)``.
    case integer(Int)
    /// `left op right`; `NULL` when either side is `NULL`.
    case compare(SQLExpression, SQLComparisonOperator, SQLExpression)
    /// `x IS NULL`.
    case isNull(SQLExpression)
    /// `x IS NOT NULL`.
    case isNotNull(SQLExpression)
    /// Null-safe equality (`IS NOT DISTINCT FROM`): `NULL` equals `NULL`; never `NULL` itself.
    case isNotDistinct(SQLExpression, SQLExpression)
    /// Null-safe inequality (`IS DISTINCT FROM`).
    case isDistinct(SQLExpression, SQLExpression)
    /// All of the conditions (n-ary; a printer may group a long list however its parser needs).
    case and([SQLExpression])
    /// Any of the conditions (n-ary).
    case or([SQLExpression])
    /// Two-valued negation: true when the condition is false or `NULL`.
    case not(SQLExpression)
    /// A function named by its role; the printer knows the dialect's name for it.
    case function(SQLFunction, [SQLExpression])
    /// Arithmetic on numbers; ``SQLArithmeticOperator/divide`` is real (not integer) division.
    case arithmetic(SQLExpression, SQLArithmeticOperator, SQLExpression)
    /// `CASE WHEN condition THEN a ELSE b END`.
    case caseWhen(SQLExpression, then: SQLExpression, else: SQLExpression)
    /// `x IN (a, b, …)` over a non-empty list.
    case inList(SQLExpression, [SQLExpression])
    /// A string compared (sorted) by a collation: `x COLLATE name`.
    case collate(SQLExpression, StringCollation)
    /// `EXISTS (subquery)`: true when the subquery has a row; never `NULL`.
    case exists(SQLSubquery)
    /// `(subquery)` as a value: its selection of its one row (`COUNT(*)`, an aggregate).
    case scalar(SQLSubquery)
}

/// The ordering and equality operators of ``SQLExpression/compare(_:_:_:)``.
package enum SQLComparisonOperator: Hashable {
    case equal, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual
    /// `<>`: `NULL` when either side is; only in a partial index's condition (a predicate's `!=` is
    /// null-safe, ``SQLExpression/isDistinct(_:_:)``).
    case notEqual

    /// The operator for an ordering comparison of a predicate (`<`, `<=`, `>`, `>=`), `nil` for others.
    init?(ordering op: NSComparisonPredicate.Operator) {
        switch op {
        case .lessThan: self = .lessThan
        case .lessThanOrEqualTo: self = .lessThanOrEqual
        case .greaterThan: self = .greaterThan
        case .greaterThanOrEqualTo: self = .greaterThanOrEqual
        default: return nil
        }
    }
}

/// The operators of ``SQLExpression/arithmetic(_:_:_:)``.
package enum SQLArithmeticOperator: Hashable {
    case add, subtract, multiply
    /// Real division, also of two integers (`7 / 2` is 3.5, as in memory).
    case divide
}

/// A function by what it does. Each runs the same Swift code as in-memory evaluation (a store registers
/// it under its own name); the string tests carry the `[c]`/`[d]` options they apply.
package enum SQLFunction: Hashable {
    /// The string folded by `[c]`/`[d]` (`StringMatching.fold`).
    case fold(NSComparisonPredicate.Options)
    /// `a BEGINSWITH b`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES` with options (`StringMatching`).
    case beginsWith(NSComparisonPredicate.Options)
    case endsWith(NSComparisonPredicate.Options)
    case contains(NSComparisonPredicate.Options)
    case like(NSComparisonPredicate.Options)
    case matches(NSComparisonPredicate.Options)
    /// `uppercase:`, `lowercase:` of a string.
    case upper, lower
    /// `length:` of a string, and its key `length` (`name.length`): UTF-16 units, as `NSString`'s.
    case utf16Length
    /// `abs:` of a number.
    case abs
    /// The aggregates of a dictionary fetch's expression descriptions (`sum:`, `min:`, `max:`,
    /// `average:`, `count:`), over the fetched rows or their groups.
    case sum, min, max, average, count
}

extension SQLComparisonOperator {
    /// The operator as SQL writes it (the same in every dialect this library prints).
    var sqlText: String {
        switch self {
        case .equal: return "="
        case .lessThan: return "<"
        case .lessThanOrEqual: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqual: return ">="
        case .notEqual: return "<>"
        }
    }
}

extension Value {
    /// The value as a literal in SQL text (``SQLExpression/constant(_:)``, where a database takes no
    /// bound values): a truth value as 1/0 (the layout keeps booleans as integers), a finite number, a
    /// string quoted with its quotes doubled.
    var sqlConstant: String {
        switch self {
        case .null: return "NULL"
        case .bool(let b): return b ? "1" : "0"
        case .int(let i): return String(i)
        case .double(let d) where d.isFinite: return String(d)
        case .string(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        default: preconditionFailure("a SQL constant is a truth value, a finite number or a string, not \(self)")
        }
    }
}

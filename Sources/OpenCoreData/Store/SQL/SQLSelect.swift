import Foundation

/// A whole `SELECT` statement as a value, independent of the database that runs it: what it selects,
/// from where, the joins, the conditions, grouping, ordering and the window. A dialect's printer renders
/// it (``SQLitePrinter`` for SQLite), binding its values in text order through a
/// ``SQLGenerationContext``, so a second SQL store adds a printer, not a second query builder.
///
/// `SQLSelect(fetching:…)` (`SQLSelect+Fetch.swift`) builds the one of a fetch from its ``FetchPlan``.
package struct SQLSelect: Hashable {
    /// What the statement selects.
    enum Selection: Hashable {
        /// These values, in order.
        case columns([SQLExpression])
        /// The number of rows (`COUNT(*)`).
        case count
    }

    /// What the statement reads rows from.
    indirect enum Source: Hashable {
        /// A table under an alias (`ZPRODUCTS t0`).
        case table(String, alias: String)
        /// The rows of another statement (`(SELECT t0.Z_PK FROM … LIMIT 12)`).
        case select(SQLSelect)
    }

    /// One term of `ORDER BY`.
    struct Ordering: Hashable {
        let expression: SQLExpression
        let ascending: Bool
    }

    var distinct = false
    var selection: Selection
    var source: Source
    /// Tables joined to the source, in alias order.
    var joins: [SQLJoin] = []
    /// The conditions every row must meet (`WHERE a AND b`); each is printed as it is, so each must be
    /// one term (a junction prints its own parentheses).
    var conditions: [SQLExpression] = []
    var groupBy: [SQLExpression] = []
    /// The condition every group must meet; only with ``groupBy``.
    var having: SQLExpression? = nil
    var orderBy: [Ordering] = []
    /// Whether the first sort term may not be read from an index, so that the rows are read in table order
    /// and sorted (a planner hint: a dialect that has a way to say it prints it, SQLite as a unary `+`; the
    /// store that builds the statement decides when, docs/Store.md, "Fetching").
    var sortsWithoutIndex = false
    /// At most this many rows (`nil`: all).
    var limit: Int? = nil
    /// Rows skipped before the first one returned (`nil`: none).
    var offset: Int? = nil
}

import Foundation

/// A table joined into a `FROM` clause: `LEFT OUTER JOIN ZCLASSIFICATION t1 ON t0.ZCLASSIFICATION = t1.Z_PK`.
///
/// Key paths through to-one relationships join the destination's table outer, so that a `nil`
/// relationship keeps its row and reads `NULL` further on, as a `nil` object does in memory. The rows of a
/// join table reach their destination table by an inner join.
struct SQLJoin: Hashable {
    enum Kind: Hashable {
        /// `JOIN`: only rows with a match.
        case inner
        /// `LEFT OUTER JOIN`: every row, with `NULL` columns where nothing matches.
        case leftOuter
    }

    let kind: Kind
    let table: String
    let alias: String
    /// The key on the side already joined (`t0.ZCLASSIFICATION`), equal to `alias.Z_PK`.
    let key: SQLExpression
}

/// A subquery over the rows a to-many relationship holds for one row of the enclosing query (correlated
/// by ``correlation``): the destination table (a relationship whose inverse is a to-one), or the join
/// table of a many-to-many (whose destination table is joined only when a column of it is read).
package struct SQLSubquery: Hashable {
    /// What the subquery selects.
    enum Selection: Hashable {
        /// Any row (for `EXISTS`).
        case one
        /// `COUNT(*)`.
        case count
        /// `SUM`, 0 when there are no rows (as `@sum` of an empty set is 0 in memory).
        case sum(SQLExpression)
        /// `AVG`, `MIN`, `MAX`: `NULL` when there are no rows, or only `NULL` values.
        case average(SQLExpression)
        case minimum(SQLExpression)
        case maximum(SQLExpression)
    }

    var selection: Selection
    /// The table the subquery reads and its alias.
    let table: String
    let alias: String
    /// Tables joined to it (the destination of a join table; to-ones read from the elements).
    var joins: [SQLJoin]
    /// The condition that ties a row to the enclosing row (`t2.ZCLASSIFICATION = t0.Z_PK`).
    let correlation: SQLExpression
    /// The elements' own condition, if any.
    var condition: SQLExpression?
}

import Foundation

/// A statement that writes rows, as a value independent of the database that runs it: the rows of a save
/// (an entity's row, its join-table pairs, the order of its members), the store's bookkeeping rows
/// (`Z_PRIMARYKEY`, `Z_METADATA`) and history's. A dialect's printer renders it (``SQLitePrinter`` for
/// SQLite), so a second SQL store adds a printer, not a second set of statements.
///
/// A statement run once binds its values (``SQLExpression/parameter(_:)``); one prepared once and run
/// for many rows holds ``SQLExpression/placeholder`` where each run binds a value, in text order.
package enum SQLWrite: Hashable {
    case insert(SQLInsert)
    case update(SQLUpdate)
    case delete(SQLDelete)
}

/// `INSERT INTO table (columns) VALUES (…), …`, with what happens when a row breaks a unique key.
package struct SQLInsert: Hashable {
    /// What the statement does with a row whose unique key (or primary key) another row holds.
    package enum Conflict: Hashable {
        /// The statement fails.
        case fail
        /// The row is not written (`INSERT OR IGNORE`; `ON CONFLICT DO NOTHING` in PostgreSQL).
        case ignore
        /// The row already there takes the new row's values of `columns` (an upsert: `ON CONFLICT (key)
        /// DO UPDATE SET c = excluded.c`).
        case update(key: [String], columns: [String])
    }

    var table: String
    var columns: [String]
    /// One list of values per row, each as long as ``columns``.
    var rows: [[SQLExpression]]
    var conflict: Conflict = .fail

    /// One row of values to be bound when the statement runs, one per column.
    init(into table: String, columns: [String], conflict: Conflict = .fail) {
        self.init(into: table, columns: columns, rows: [columns.map { _ in .placeholder }], conflict: conflict)
    }

    init(into table: String, columns: [String], rows: [[SQLExpression]], conflict: Conflict = .fail) {
        self.table = table
        self.columns = columns
        self.rows = rows
        self.conflict = conflict
    }
}

/// `UPDATE table SET column = value, … WHERE conditions`: columns are named bare (``SQLExpression/name(_:)``
/// in its values and conditions), as the statement has one table.
package struct SQLUpdate: Hashable {
    var table: String
    var assignments: [SQLAssignment]
    /// The conditions every updated row meets (`AND`ed; none: every row).
    var conditions: [SQLExpression] = []
}

/// `column = value` in an `UPDATE`.
package struct SQLAssignment: Hashable {
    var column: String
    var value: SQLExpression

    init(_ column: String, _ value: SQLExpression = .placeholder) {
        self.column = column
        self.value = value
    }
}

/// `DELETE FROM table WHERE conditions`.
package struct SQLDelete: Hashable {
    var table: String
    /// The conditions every deleted row meets (`AND`ed; none: every row).
    var conditions: [SQLExpression] = []
}

extension SQLExpression {
    /// `column = ?`: the condition most writes name their row by.
    static func equals(_ column: String, _ value: SQLExpression = .placeholder) -> SQLExpression {
        .compare(.name(column), .equal, value)
    }
}

import Foundation

/// Writes and schema changes as PostgreSQL text: the same values the SQLite printer prints, with `$n`
/// placeholders, `ON CONFLICT DO NOTHING` for an insert that ignores a conflict, and PostgreSQL's types
/// for Core Data's (``typeName(_:)``).
extension PostgresPrinter {
    static func sql(_ write: SQLWrite, _ context: inout SQLGenerationContext) throws -> String {
        switch write {
        case .insert(let insert): return try sql(insert, &context)
        case .update(let update):
            let sets = try update.assignments.map { "\($0.column) = \(try sql($0.value, &context))" }.joined(separator: ", ")
            return "UPDATE \(update.table) SET \(sets)" + (try whereClause(update.conditions, &context))
        case .delete(let delete):
            return "DELETE FROM \(delete.table)" + (try whereClause(delete.conditions, &context))
        }
    }

    private static func sql(_ insert: SQLInsert, _ context: inout SQLGenerationContext) throws -> String {
        let rows = try insert.rows.map { row in "(" + (try row.map { try sql($0, &context) }.joined(separator: ", ")) + ")" }
        var text = "INSERT INTO \(insert.table) (\(insert.columns.joined(separator: ", "))) VALUES \(rows.joined(separator: ", "))"
        switch insert.conflict {
        case .fail: break
        case .ignore: text += " ON CONFLICT DO NOTHING"
        case .update(let key, let columns):
            let sets = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            text += " ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET \(sets)"
        }
        return text
    }

    private static func whereClause(_ conditions: [SQLExpression], _ context: inout SQLGenerationContext) throws -> String {
        conditions.isEmpty ? "" : " WHERE " + (try conditions.map { try sql($0, &context) }.joined(separator: " AND "))
    }

    /// The PostgreSQL text of a schema change (it binds nothing: a partial index's condition holds constants).
    static func sql(_ change: SQLSchemaChange) throws -> String {
        switch change {
        case .createTable(let table):
            var parts = table.columns.map(definition)
            if !table.primaryKey.isEmpty { parts.append("PRIMARY KEY (\(table.primaryKey.joined(separator: ", ")))") }
            return "CREATE TABLE " + (table.ifNotExists ? "IF NOT EXISTS " : "") + "\(table.name) (\(parts.joined(separator: ", ")))"
        case .createIndex(let index):
            let columns = index.columns.map { $0.name + ($0.ascending.map { $0 ? " ASC" : " DESC" } ?? "") }.joined(separator: ", ")
            var text = "CREATE " + (index.unique ? "UNIQUE " : "") + "INDEX " + (index.ifNotExists ? "IF NOT EXISTS " : "")
            text += "\(index.name) ON \(index.table) (\(columns))"
            if let condition = index.condition {
                var context = SQLGenerationContext()
                text += " WHERE " + (try sql(condition, &context))
            }
            return text
        case .dropTable(let name, let ifExists): return "DROP TABLE " + (ifExists ? "IF EXISTS " : "") + name
        case .dropIndex(let name, let ifExists): return "DROP INDEX " + (ifExists ? "IF EXISTS " : "") + name
        case .addColumn(let table, let column): return "ALTER TABLE \(table) ADD COLUMN \(definition(column))"
        }
    }

    private static func definition(_ column: SQLColumnDefinition) -> String {
        column.name + " " + typeName(column.type) + (column.isPrimaryKey ? " PRIMARY KEY" : "")
    }

    /// PostgreSQL's column type for each of Core Data's: integers and booleans `bigint` (as Core Data's
    /// layout keeps booleans as 0/1), floating point, decimals and dates `double precision` (dates as
    /// seconds since 2001-01-01, Core Data's `TIMESTAMP`), strings `text`, data `bytea`; a column of no type
    /// (history's tombstones) `text`.
    static func typeName(_ type: SQLColumnType) -> String {
        switch type {
        case .integer: return "BIGINT"
        case .float, .decimal, .timestamp: return "DOUBLE PRECISION"
        case .varchar(let length): return length.map { "VARCHAR(\($0))" } ?? "TEXT"
        case .blob: return "BYTEA"
        // Only history's tombstone columns, which hold values of any type: as text (PostgresTombstone).
        case .untyped: return "TEXT"
        }
    }
}

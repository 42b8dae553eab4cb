import Foundation

/// Renders the writes (``SQLWrite``) and schema changes (``SQLSchemaChange``) as SQLite text, as Core Data
/// writes them: `INSERT OR IGNORE` for a skipped conflict, `ON CONFLICT (…) DO UPDATE SET c = excluded.c`
/// for an upsert; Core Data's declared column types (``typeName(_:)``).
extension SQLitePrinter {
    /// The SQLite text of a write; its bound values are appended to `context`'s arguments, in text order.
    static func sql(_ write: SQLWrite, _ context: inout SQLGenerationContext) -> String {
        switch write {
        case .insert(let insert): return sql(insert, &context)
        case .update(let update):
            let sets = update.assignments.map { "\($0.column) = \(sql($0.value, &context))" }.joined(separator: ", ")
            return "UPDATE \(update.table) SET \(sets)" + whereClause(update.conditions, &context)
        case .delete(let delete):
            return "DELETE FROM \(delete.table)" + whereClause(delete.conditions, &context)
        }
    }

    /// The text of a write whose values are all placeholders or literals (a statement prepared once and
    /// run for many rows).
    static func text(_ write: SQLWrite) -> String {
        var context = SQLGenerationContext()
        let text = sql(write, &context)
        precondition(context.arguments.isEmpty, "a prepared write binds its values when it runs: \(text)")
        return text
    }

    private static func sql(_ insert: SQLInsert, _ context: inout SQLGenerationContext) -> String {
        let verb = insert.conflict == .ignore ? "INSERT OR IGNORE INTO" : "INSERT INTO"
        let rows = insert.rows.map { row in "(" + row.map { sql($0, &context) }.joined(separator: ", ") + ")" }
        var text = "\(verb) \(insert.table) (\(insert.columns.joined(separator: ", "))) VALUES \(rows.joined(separator: ", "))"
        if case .update(let key, let columns) = insert.conflict {
            let sets = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            text += " ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET \(sets)"
        }
        return text
    }

    private static func whereClause(_ conditions: [SQLExpression], _ context: inout SQLGenerationContext) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.map { sql($0, &context) }.joined(separator: " AND ")
    }

    /// The SQLite text of a schema change (schema changes bind no values).
    static func sql(_ change: SQLSchemaChange) -> String {
        switch change {
        case .createTable(let table): return sql(table)
        case .createIndex(let index): return sql(index)
        case .dropTable(let name, let ifExists): return "DROP TABLE " + (ifExists ? "IF EXISTS " : "") + name
        case .dropIndex(let name, let ifExists): return "DROP INDEX " + (ifExists ? "IF EXISTS " : "") + name
        case .addColumn(let table, let column): return "ALTER TABLE \(table) ADD COLUMN \(definition(column))"
        }
    }

    private static func sql(_ table: SQLCreateTable) -> String {
        var parts = table.columns.map(definition)
        if !table.primaryKey.isEmpty { parts.append("PRIMARY KEY (\(table.primaryKey.joined(separator: ", ")))") }
        let list = parts.joined(separator: ", ")
        let exists = table.ifNotExists ? "IF NOT EXISTS " : ""
        return "CREATE TABLE \(exists)\(table.name) " + (table.padded ? "( \(list) )" : "(\(list))")
    }

    private static func sql(_ index: SQLCreateIndex) -> String {
        let columns = index.columns.map { column in
            column.name + (column.ascending.map { $0 ? " COLLATE BINARY ASC" : " COLLATE BINARY DESC" } ?? "")
        }.joined(separator: ", ")
        var text = "CREATE " + (index.unique ? "UNIQUE " : "") + "INDEX " + (index.ifNotExists ? "IF NOT EXISTS " : "")
        text += "\(index.name) ON \(index.table) (\(columns))"
        if let condition = index.condition { text += " WHERE " + Self.text(condition) }
        return text
    }

    /// The text of an expression that binds no values (an index's condition: constants and columns).
    static func text(_ expression: SQLExpression) -> String {
        var context = SQLGenerationContext()
        let text = sql(expression, &context)
        precondition(context.arguments.isEmpty, "an expression printed alone holds constants, not bound values: \(text)")
        return text
    }

    /// `ZNAME VARCHAR`, `Z_PK INTEGER PRIMARY KEY`; an untyped column is its name alone.
    private static func definition(_ column: SQLColumnDefinition) -> String {
        let type = typeName(column.type)
        return column.name + (type.isEmpty ? "" : " " + type) + (column.isPrimaryKey ? " PRIMARY KEY" : "")
    }

    /// The type Core Data declares for a column in a SQLite store (REAL affinity for floating-point
    /// numbers, so SQLite keeps −0.0 as 0: docs/StoreFormat.md).
    static func typeName(_ type: SQLColumnType) -> String {
        switch type {
        case .integer: return "INTEGER"
        case .float: return "FLOAT"
        case .decimal: return "DECIMAL"
        case .timestamp: return "TIMESTAMP"
        case .varchar(let length): return length.map { "VARCHAR(\($0))" } ?? "VARCHAR"
        case .blob: return "BLOB"
        case .untyped: return ""
        }
    }
}

extension SQLiteConnection {
    /// Runs a write once, binding its values; returns the number of rows changed.
    @discardableResult
    func run(_ write: SQLWrite) throws -> Int {
        var context = SQLGenerationContext()
        let text = SQLitePrinter.sql(write, &context)
        return try run(text, context.arguments)
    }

    /// Makes or changes the schema.
    func execute(_ change: SQLSchemaChange) throws {
        try execute(SQLitePrinter.sql(change))
    }
}

import Foundation

/// A PostgreSQL session inside the transaction that opens a store, as the database of an in-place
/// migration (``MigrationDatabase``): the plan's `?` placeholders numbered `$1`, `$2`, … and its schema
/// statements printed by ``PostgresPrinter``. PostgreSQL's DDL is transactional: a migration that fails
/// leaves every table, row and index as it was.
struct PostgresMigrationDatabase: MigrationDatabase {
    let session: any PostgresSession

    @discardableResult
    func run(_ sql: String, _ arguments: [Value]) throws -> Int {
        try session.run(Self.numbered(sql), try [PostgresDatum](binding: arguments)).affected
    }

    @discardableResult
    func run(_ write: SQLWrite) throws -> Int {
        var context = SQLGenerationContext()
        let sql = try PostgresPrinter.sql(write, &context)
        return try session.run(sql, try [PostgresDatum](binding: context.arguments)).affected
    }

    func execute(_ change: SQLSchemaChange) throws {
        _ = try session.run(try PostgresPrinter.sql(change), [])
    }

    func integer(_ sql: String, _ arguments: [Value]) throws -> Int64 {
        let rows = try session.run(Self.numbered(sql), try [PostgresDatum](binding: arguments)).rows
        guard let value = rows.first?.first?.integer else { throw PostgresMigrationFailure(sql: sql) }
        return value
    }

    func primaryKeyRows() throws -> [Int: (name: String, max: Int64)] {
        var rows: [Int: (name: String, max: Int64)] = [:]
        for row in try session.run("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY", []).rows {
            guard let entity = row[0].integer else { continue }
            rows[Int(entity)] = (row[1].text ?? "", row[2].integer ?? 0)
        }
        return rows
    }

    /// `ALTER TABLE … RENAME TO …`, and its primary key's index with it: PostgreSQL names that index
    /// after the table (`<table>_pkey`), and a new table of the old name makes one of that name.
    func renameTable(_ name: String, to newName: String) throws {
        _ = try session.run("ALTER TABLE \(name) RENAME TO \(newName)", [])
        _ = try session.run("ALTER INDEX IF EXISTS \(name)_pkey RENAME TO \(newName)_pkey", [])
    }

    func insertIgnoringDuplicates(into table: String, columns: [String], select: String) throws {
        _ = try session.run("INSERT INTO \(table) (\(columns.joined(separator: ", "))) SELECT \(select) ON CONFLICT DO NOTHING", [])
    }

    var rowNumber: String { "row_number() OVER ()" }

    /// A PostgreSQL store's migration drops the tables it replaced in its own transaction (it never
    /// defers: docs/PostgreSQL.md), so none is left; an earlier one's would be found here.
    func leftoverTables() throws -> [String] {
        let pattern = DeferredMigrationCleanup.prefix.lowercased().replacingOccurrences(of: "_", with: "\\_") + "%"
        return try session.run("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE $1 ORDER BY table_name",
                               [.text(pattern)]).rows.compactMap { $0.first?.text }
    }

    /// PostgreSQL keeps no statement to compare: every index of these tables but their primary keys is
    /// dropped, and the wanted ones are made (inside the migration's transaction).
    func replaceIndexes(of tables: Set<String>, with wanted: [SQLCreateIndex]) throws {
        let names = Set(tables.map { $0.lowercased() })
        let present = try session.run("""
            SELECT c.relname, t.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
            WHERE t.relnamespace = current_schema()::regnamespace AND NOT i.indisprimary ORDER BY c.relname
            """, []).rows.compactMap { row in row[1].text.map(names.contains) == true ? row[0].text : nil }
        for name in present { _ = try session.run("DROP INDEX \(name)", []) }
        for index in wanted {
            let sql = try PostgresPrinter.sql(.createIndex(index))
            do {
                _ = try session.run(sql, [])
            } catch let error as PostgresWireError where error.kind == .uniqueViolation {
                throw MigrationUniqueViolation(index: sql, underlying: error)
            }
        }
    }

    func writeMetadata(_ plist: [String: Any]) throws {
        var plist = plist
        plist[NSStoreTypeKey] = PostgresStoreKind.type
        try run(CoreDataTables.writeMetadata(try StoreMetadata.encode(plist), uuid: nil))
    }

    /// `sql` with its `?` placeholders (outside quoted text) numbered `$1`, `$2`, ….
    static func numbered(_ sql: String) -> String {
        var text = "", number = 0, quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?" && !quoted {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        return text
    }
}

/// A migration query that gave no row.
struct PostgresMigrationFailure: Error, CustomStringConvertible {
    let sql: String
    var description: String { "no row from \(sql)" }
}

import CSQLite
import Foundation

/// The SQLite store's connection as the database of an in-place migration (``MigrationDatabase``).
extension SQLiteConnection: MigrationDatabase {
    func integer(_ sql: String, _ arguments: [Value]) throws -> Int64 {
        var result: Int64 = 0
        try query(sql, arguments) { result = $0.int64(0) }
        return result
    }

    func primaryKeyRows() throws -> [Int: (name: String, max: Int64)] {
        var rows: [Int: (name: String, max: Int64)] = [:]
        try query("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY") { row in
            let name: String = if case .string(let s) = row.value(1, as: .stringAttributeType) { s } else { "" }
            rows[Int(row.int64(0))] = (name, row.int64(2))
        }
        return rows
    }

    /// `ALTER TABLE … RENAME TO …` (its indexes keep their names and follow it).
    func renameTable(_ name: String, to newName: String) throws {
        try execute("ALTER TABLE \(name) RENAME TO \(newName)")
    }

    func insertIgnoringDuplicates(into table: String, columns: [String], select: String) throws {
        try execute("INSERT OR IGNORE INTO \(table) (\(columns.joined(separator: ", "))) SELECT \(select)")
    }

    var rowNumber: String { "e.rowid" }

    func leftoverTables() throws -> [String] { try DeferredMigrationCleanup.leftovers(self) }

    /// Compares each index's statement with the one `sqlite_master` keeps: an index whose statement
    /// changed is made again, one of these tables that is not wanted is dropped.
    func replaceIndexes(of tables: Set<String>, with wanted: [SQLCreateIndex]) throws {
        let statements = Dictionary(wanted.map { ($0.name, SQLitePrinter.sql(.createIndex($0))) }, uniquingKeysWith: { a, _ in a })
        var present: [String: (table: String, sql: String)] = [:]
        try query("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = ? AND sql IS NOT NULL", [.string("index")]) { row in
            if case .string(let name) = row.value(0, as: .stringAttributeType), case .string(let table) = row.value(1, as: .stringAttributeType),
               case .string(let sql) = row.value(2, as: .stringAttributeType) {
                present[name] = (table, sql)
            }
        }
        for (name, index) in present.sorted(by: { $0.key < $1.key }) where tables.contains(index.table) && statements[name] != index.sql {
            try execute(.dropIndex(name))
            present[name] = nil
        }
        for index in wanted where present[index.name] == nil {
            do {
                try execute(.createIndex(index))
                present[index.name] = (index.table, statements[index.name]!)
            } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
                throw MigrationUniqueViolation(index: statements[index.name]!, underlying: error)
            }
        }
    }

    /// `Z_METADATA`, and `Z_MODELCACHE` dropped: the cached model would be the source's, and Core Data
    /// would take it for the store's model.
    func writeMetadata(_ plist: [String: Any]) throws {
        try StoreMetadata.write(plist, uuid: nil, self)
        try execute(.dropTable("Z_MODELCACHE", ifExists: true))
    }
}

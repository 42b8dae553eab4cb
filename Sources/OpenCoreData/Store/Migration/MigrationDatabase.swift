import Foundation

/// The database an in-place lightweight migration (``InPlaceMigration``) runs on, inside a transaction
/// its store opened: the plan's statements in the store's dialect. SQL text given here uses `?`
/// placeholders and unquoted Core Data names; values are always bound. The SQLite store's connection and
/// the PostgreSQL store's session conform.
protocol MigrationDatabase {
    /// Runs a statement with `?` placeholders; returns the rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [Value]) throws -> Int
    /// Runs a write of the query values.
    @discardableResult
    func run(_ write: SQLWrite) throws -> Int
    /// Makes or changes the schema.
    func execute(_ change: SQLSchemaChange) throws
    /// The first column of the first row of a query with `?` placeholders, as an integer.
    func integer(_ sql: String, _ arguments: [Value]) throws -> Int64
    /// `Z_PRIMARYKEY` as it is: entity number → `Z_NAME`, `Z_MAX`.
    func primaryKeyRows() throws -> [Int: (name: String, max: Int64)]
    /// Renames a table (and what the dialect names after it, so that a new table may take the old name).
    func renameTable(_ name: String, to newName: String) throws
    /// `INSERT INTO table (columns) SELECT select`, rows whose key is already there skipped.
    func insertIgnoringDuplicates(into table: String, columns: [String], select: String) throws
    /// An expression numbering the rows of a `SELECT … FROM … e` (an order for rows that had none).
    var rowNumber: String { get }
    /// The tables an earlier deferred migration left (``DeferredMigrationCleanup/prefix``), by name.
    func leftoverTables() throws -> [String]
    /// Makes the indexes of `tables` (their names, upper case as Core Data writes them) exactly
    /// `wanted`: others dropped, missing ones made. A unique index that the rows break throws
    /// ``MigrationUniqueViolation``.
    func replaceIndexes(of tables: Set<String>, with wanted: [SQLCreateIndex]) throws
    /// Writes the migrated store's metadata (and forgets what described the source model).
    func writeMetadata(_ plist: [String: Any]) throws
}

/// Rows that break a uniqueness constraint of the destination model (``MigrationDatabase/replaceIndexes(of:with:)``).
struct MigrationUniqueViolation: Error {
    /// The index's statement.
    let index: String
    /// The database's error.
    let underlying: any Error
}

import Foundation

extension SQLiteStore {
    /// Runs a batch request's writes in one transaction on the writer, as a save does: external files
    /// written by a failed request are removed, files a committed one replaced or deleted go after the
    /// commit, and derived attributes of the rows it touched are recomputed before the commit.
    func batchTransaction<T>(_ operation: String, _ body: (SQLiteConnection) throws -> T) throws -> T {
        if isReadOnly { throw readOnlyError(operation) }
        return try fileTransaction { db in
            let result = try body(db)
            var derived = StoreSaveOutcome()
            try applyDerived(&derived, db)
            return result
        }
    }
}

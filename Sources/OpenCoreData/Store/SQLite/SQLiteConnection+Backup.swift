import CSQLite
import Foundation

extension SQLiteConnection {
    /// Makes this connection's database a copy of `source`'s with SQLite's online backup: one write
    /// transaction here, so the database ends as a whole copy of the source or as it was.
    func replaceContents(from source: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw SQLiteError(code: sqlite3_errcode(handle), extendedCode: sqlite3_extended_errcode(handle),
                              message: "cannot copy \(source.path) into \(path): \(String(cString: sqlite3_errmsg(handle)))", sql: nil)
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            let code = step == SQLITE_DONE ? finish : step
            throw SQLiteError(code: code, extendedCode: sqlite3_extended_errcode(handle),
                              message: "cannot copy \(source.path) into \(path): \(String(cString: sqlite3_errstr(code)))", sql: nil)
        }
    }
}

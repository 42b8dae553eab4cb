import CSQLite
import Foundation

/// A SQLite database opened for reading only: the inspector's way into a store file without Core Data's
/// checks, so that it reads what any Core Data store holds, including one the library refuses to open.
/// Nothing is ever written: no schema, no journal-mode change, no checkpoint.
///
/// A database with nothing in a `-wal` or `-journal` file beside it is opened as immutable
/// (`?immutable=1`): SQLite then reads the main file alone and creates no `-wal` or `-shm` file (a
/// read-only connection to a WAL database otherwise creates both when they are missing). One with a
/// non-empty `-wal` is opened with `?mode=ro`, which reads the `-wal` through SQLite's `-shm` index (created
/// when missing, rebuilt when stale: it is an index, not data). When that index cannot be used (a folder
/// that is not writable), the file is opened as immutable and ``walIgnored`` tells the report to say so.
final class ReadOnlyDatabase {
    private let handle: OpaquePointer
    let path: String
    /// True when the database was opened as immutable although a non-empty `-wal` beside it holds rows.
    private(set) var walIgnored = false

    /// A value of a result column, as SQLite stores it.
    enum Value: Equatable {
        case null, integer(Int64), real(Double), text(String), blob(Data)

        var integer: Int64? { if case .integer(let v) = self { return v } else { return nil } }
        var text: String? { if case .text(let v) = self { return v } else { return nil } }
        var blob: Data? { if case .blob(let v) = self { return v } else { return nil } }
    }

    init(path: String) throws(InspectorError) {
        let pending = (SQLiteFileFacts.size(of: path + "-wal") ?? 0) > 0 || (SQLiteFileFacts.size(of: path + "-journal") ?? 0) > 0
        var opened = try Self.open(path, immutable: !pending)
        if pending {
            do {
                _ = try Self.rows(opened, path: path, "SELECT count(*) FROM sqlite_master")
            } catch {
                // SQLITE_CANTOPEN / SQLITE_READONLY: the -shm index cannot be mapped here.
                sqlite3_close_v2(opened)
                opened = try Self.open(path, immutable: true)
                walIgnored = (SQLiteFileFacts.size(of: path + "-wal") ?? 0) > 0
            }
        }
        handle = opened
        self.path = path
    }

    deinit { sqlite3_close_v2(handle) }

    /// The rows of a query, each a list of column values; `arguments` are bound as parameters.
    func rows(_ sql: String, _ arguments: [Value] = []) throws(InspectorError) -> [[Value]] {
        try Self.rows(handle, path: path, sql, arguments)
    }

    /// An identifier quoted for SQL (table names come from `sqlite_master`; identifiers cannot be bound).
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func open(_ path: String, immutable: Bool) throws(InspectorError) -> OpaquePointer {
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        let uri = "file:" + encoded + (immutable ? "?immutable=1" : "?mode=ro")
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw .storeFile(path, "SQLite cannot open it: \(message)")
        }
        return db
    }

    private static func rows(_ db: OpaquePointer, path: String, _ sql: String, _ arguments: [Value] = []) throws(InspectorError) -> [[Value]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw .storeFile(path, "SQLite cannot read it: \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (i, argument) in arguments.enumerated() {
            let index = Int32(i + 1)
            switch argument {
            case .integer(let v): sqlite3_bind_int64(statement, index, v)
            case .real(let v): sqlite3_bind_double(statement, index, v)
            case .text(let v): sqlite3_bind_text(statement, index, v, -1, transient)
            case .blob(let v): _ = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        var result: [[Value]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return result }
            guard rc == SQLITE_ROW else {
                throw .storeFile(path, "SQLite cannot read it: \(String(cString: sqlite3_errmsg(db)))")
            }
            result.append((0..<sqlite3_column_count(statement)).map { value(statement, $0) })
        }
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> Value {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let bytes = sqlite3_column_text(statement, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}

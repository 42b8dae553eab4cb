import CSQLite
import Foundation

/// A SQLite failure, as GRDB's `DatabaseError` keeps one: the result code SQLite returned, its extended
/// result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY_SNAPSHOT`, …), SQLite's message, the SQL that
/// failed and the values bound to it.
///
/// Callers classify a failure by its codes (``isUniqueConstraintViolation``, ``primaryCode``), never by
/// its message. The arguments may be private data: the ``description`` leaves them out unless
/// ``publicStatementArguments`` is set (logs show their types only, see ``redacted(_:)``).
///
/// A store turns it into a ``CoreDataError`` (``coreDataError``) that keeps it under
/// `NSUnderlyingErrorKey` (read back by ``CoreDataError/sqliteError``) and its result code under
/// `NSSQLiteErrorDomain`, as Core Data's own errors do.
struct SQLiteError: Error, CustomStringConvertible {
    /// The result code the failing call returned (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    let code: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067); equal to ``code`` when SQLite has
    /// no finer one.
    let extendedCode: Int32
    /// SQLite's own message (read only here, in `Store/SQLite/`).
    let message: String
    /// The SQL that failed, if the failure belongs to a statement.
    let sql: String?
    /// The values bound to the statement's placeholders, in order (empty when none, or unknown).
    var arguments: [Value] = []
    /// Whether ``description`` shows the ``arguments`` (off by default: they may be private data).
    var publicStatementArguments = false

    init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String?, arguments: [Value] = []) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.arguments = arguments
    }

    /// The primary result code (the low byte of an extended code).
    var primaryCode: Int32 { code & 0xff }

    /// `SQLITE_CONSTRAINT_UNIQUE` and `SQLITE_CONSTRAINT_PRIMARYKEY` (C macros Swift does not import).
    static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)
    static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)

    /// A `UNIQUE` index (or the primary key) refused a row: SQLite's message says "UNIQUE constraint failed".
    var isUniqueConstraintViolation: Bool {
        extendedCode == Self.constraintUnique || extendedCode == Self.constraintPrimaryKey
    }

    /// SQLite's parser holds about 50 levels of parentheses, and expressions at most 1,000 deep; both
    /// failures are a plain `SQLITE_ERROR`, told apart by their message.
    var isTooDeeplyNested: Bool {
        message.contains("parser stack overflow") || message.contains("Expression tree is too large")
    }

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " — while executing: \(sql)" }
        if publicStatementArguments, !arguments.isEmpty {
            text += " with arguments [" + arguments.map(Self.shown).joined(separator: ", ") + "]"
        }
        return text
    }

    /// The same error with ``arguments`` shown in its description.
    func withPublicArguments() -> SQLiteError {
        var error = self
        error.publicStatementArguments = true
        return error
    }

    /// The arguments' kinds only (`[<text>, <number>, NULL]`), for logs.
    static func redacted(_ arguments: [Value]) -> String {
        "[" + arguments.map { v -> String in
            switch v {
            case .null: return "NULL"
            case .string: return "<text>"
            case .data, .uuid: return "<blob>"
            default: return "<number>"
            }
        }.joined(separator: ", ") + "]"
    }

    /// An argument as SQL would write it (`'text'`, `12`, `NULL`, `<16 bytes>`).
    private static func shown(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .string(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return b ? "1" : "0"
        case .data(let d): return "<\(d.count) bytes>"
        default: return "\(value.anyValue ?? "NULL")"
        }
    }

    /// The Core Data error a store throws for this failure: `NSSQLiteError` with this description, or,
    /// for a predicate nested too deeply for SQLite's parser, `NSCoreDataError` saying how to avoid it.
    var coreDataError: CoreDataError {
        let userInfo: [String: Any] = [NSSQLiteErrorDomain: Int(code), NSUnderlyingErrorKey: self]
        if isTooDeeplyNested {
            return CoreDataError(NSCoreDataError, "the predicate is too deeply nested for SQLite (\(message)); nest it less, or evaluate it in memory with filtered(using:)",
                                 userInfo: userInfo)
        }
        return CoreDataError(NSSQLiteError, description, userInfo: userInfo)
    }
}

extension SQLiteError: StoreFailure {
    /// The store-neutral kind of this failure, by SQLite's primary code.
    var kind: StoreFailureKind {
        if isUniqueConstraintViolation { return .uniqueViolation }
        switch primaryCode {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_READONLY, SQLITE_PERM: return .readOnly
        case SQLITE_CANTOPEN, SQLITE_NOTFOUND: return .missing
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt
        default: return .other
        }
    }
}

extension SQLiteConnection {
    /// The error of the call on this connection that just returned `code`, with SQLite's extended
    /// code and message for it.
    func error(_ code: Int32, sql: String?, arguments: [Value] = []) -> SQLiteError {
        SQLiteError(code: code, extendedCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)),
                    sql: sql, arguments: arguments)
    }
}

extension CoreDataError {
    /// The SQLite failure this error reports (kept under `NSUnderlyingErrorKey`), if it reports one.
    var sqliteError: SQLiteError? { userInfo[NSUnderlyingErrorKey] as? SQLiteError }
}

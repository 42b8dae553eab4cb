import CSQLite
import Foundation

private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement: binds `Value`s as parameters (never spliced into SQL) and reads columns back.
final class SQLiteStatement {
    let raw: OpaquePointer
    unowned let connection: SQLiteConnection
    let sql: String

    init(_ raw: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.raw = raw
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(raw) }

    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// Binds `values` to the placeholders, in order (values are never spliced into SQL text).
    func bind(_ values: [Value]) throws {
        for (i, value) in values.enumerated() {
            try bind(value, at: Int32(i + 1), arguments: values)
        }
    }

    /// Binds `value` to placeholder `index` (1-based); a failure names `arguments`, the statement's values.
    func bind(_ value: Value, at index: Int32, arguments: @autoclosure () -> [Value]) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(raw, index)
        case .bool(let b): rc = sqlite3_bind_int64(raw, index, b ? 1 : 0)
        case .int(let v): rc = sqlite3_bind_int64(raw, index, v)
        case .double(let d): rc = sqlite3_bind_double(raw, index, d)
        case .decimal(let d): rc = sqlite3_bind_double(raw, index, d.nearestDouble)
        case .string(let s):
            var text = StoredText.store(s)
            rc = text.withUTF8 { utf8 in
                // A null pointer would bind NULL: the empty string needs a real (empty) buffer.
                let start = UnsafeRawPointer(utf8.baseAddress ?? ("" as StaticString).utf8Start)
                return sqlite3_bind_text(raw, index, start.assumingMemoryBound(to: CChar.self), Int32(utf8.count), SQLITE_TRANSIENT)
            }
        case .date(let d): rc = sqlite3_bind_double(raw, index, d.timeIntervalSinceReferenceDate)
        case .data(let d):
            rc = d.withUnsafeBytes { sqlite3_bind_blob(raw, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), SQLITE_TRANSIENT) }
        case .uuid(let u):
            rc = withUnsafeBytes(of: u.uuid) { sqlite3_bind_blob(raw, index, $0.baseAddress, 16, SQLITE_TRANSIENT) }
        case .url(let u): rc = sqlite3_bind_text(raw, index, u.absoluteString, -1, SQLITE_TRANSIENT)
        case .array, .set, .object, .collection:
            throw SQLiteError(code: SQLITE_MISMATCH, message: "a collection or object cannot be bound as a SQL parameter", sql: sql, arguments: arguments())
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql, arguments: arguments()) }
    }

    /// Binds an inserted row: its key, entity number and row version, then `values` at `slots`, in
    /// order (each as it is). A failure names no arguments: the caller that knows them adds them.
    func bindRow(pk: Int64, entityID: Int, version: Int64, _ values: [Value], slots: [Int]) throws {
        try bind(integer: pk, at: 1)
        try bind(integer: Int64(entityID), at: 2)
        try bind(integer: version, at: 3)
        try values.withUnsafeBufferPointer { values in
            var index: Int32 = 4
            for slot in slots {
                precondition(slot < values.count, "a row's values end before its columns")
                try bind(values[slot], at: index, arguments: [])
                index += 1
            }
        }
    }

    private func bind(integer: Int64, at index: Int32) throws {
        let rc = sqlite3_bind_int64(raw, index, integer)
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql, arguments: []) }
    }

    /// Advances to the next row; false when done.
    func step() throws -> Bool {
        let rc = sqlite3_step(raw)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(rc, sql: sql)
        }
    }

    /// Runs `body`, the steps of one execution with `arguments` bound; a step's failure gets them.
    func steps<T>(with arguments: [Value], _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as SQLiteError where error.sql == sql && error.arguments.isEmpty {
            error.arguments = arguments
            throw error
        }
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }

    /// The column read as the attribute type stores it.
    func value(_ column: Int32, as type: NSAttributeType) -> Value {
        if type == .stringAttributeType {
            // SQLite's text of NULL is a null pointer (its text of any other value is not).
            guard let p = sqlite3_column_text(raw, column) else { return .null }
            return .string(String(decoding: UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(raw, column))), as: UTF8.self))
        }
        let kind = sqlite3_column_type(raw, column)
        if kind == SQLITE_NULL { return .null }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return kind == SQLITE_FLOAT ? .double(sqlite3_column_double(raw, column)) : .int(sqlite3_column_int64(raw, column))
        case .booleanAttributeType: return .bool(sqlite3_column_int64(raw, column) != 0)
        case .doubleAttributeType, .floatAttributeType: return .double(sqlite3_column_double(raw, column))
        case .decimalAttributeType:
            let d = sqlite3_column_double(raw, column)
            return .decimal(Decimal(shortestDigitsOf: d) ?? Decimal(d))
        case .dateAttributeType: return .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(raw, column)))
        case .stringAttributeType: return .string(text(column))
        case .URIAttributeType: return URL(string: text(column)).map { .url($0) } ?? .null
        case .binaryDataAttributeType, .transformableAttributeType: return .data(blob(column))
        case .UUIDAttributeType:
            let b = blob(column)
            guard b.count == 16 else { return .null }
            return .uuid(UUID(uuid: b.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
        case .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType: return dynamicValue(column)
        }
    }

    /// The column as SQLite typed it (for aggregate and expression results).
    func dynamicValue(_ column: Int32) -> Value {
        switch sqlite3_column_type(raw, column) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(raw, column))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(raw, column))
        case SQLITE_TEXT: return .string(text(column))
        case SQLITE_BLOB: return .data(blob(column))
        default: return .null
        }
    }

    /// Text by its byte length: a string may hold NUL characters, where `String(cString:)` would stop.
    private func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(raw, column) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(raw, column))), as: UTF8.self)
    }

    private func blob(_ column: Int32) -> Data {
        let n = Int(sqlite3_column_bytes(raw, column))
        guard n > 0, let p = sqlite3_column_blob(raw, column) else { return Data() }
        return Data(bytes: p, count: n)
    }
}

/// Where a row's values go, in placeholder order: a list of arguments, or a statement's placeholders
/// bound one after the other (``StatementBinder``).
protocol RowArgumentSink {
    mutating func add(_ value: Value) throws
}

extension Array: RowArgumentSink where Element == Value {
    mutating func add(_ value: Value) { append(value) }
}

/// Binds values to a statement's placeholders in order, from the first. A failure names no arguments:
/// the caller that knows them adds them.
struct StatementBinder: RowArgumentSink {
    let statement: SQLiteStatement
    private var index: Int32 = 1

    init(_ statement: SQLiteStatement) { self.statement = statement }

    mutating func add(_ value: Value) throws {
        try statement.bind(value, at: index, arguments: [])
        index += 1
    }
}

extension SQLiteStatement {
    /// Whether the column holds text (an external binary value's file name, in a binary column).
    func isText(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_TEXT }
}

extension SQLiteStatement {
    /// The number of columns of the statement's rows.
    var columnCount: Int32 { sqlite3_column_count(raw) }
}

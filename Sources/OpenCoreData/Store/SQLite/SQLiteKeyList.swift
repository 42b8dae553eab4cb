import CSQLite
import Foundation

/// A list of primary keys as the right side of an SQL `IN`, so that loading the rows (or relationship
/// members) of many keys is one statement whatever their number.
///
/// Where SQLite has its JSON functions (built in since 3.38, and in the usual builds before), the keys
/// travel as one bound JSON array text, read back by the `json_each` table-valued function:
/// `IN (SELECT value FROM json_each(?))` — one SQL text for every count, so one prepared statement.
/// One key is `IN (?)`. Without JSON, the keys go in chunks of 500 bound parameters
/// (`IN (?, ?, …)`), one statement each: SQLite limits the parameters of a statement.
struct SQLiteKeyList {
    /// The `IN` operand (with its parentheses) and its arguments, one per statement to run.
    let chunks: [(sql: String, arguments: [Value])]

    /// The most keys bound as separate parameters in one statement when JSON is not available.
    static let chunkSize = 500

    init(_ keys: [Int64], json: Bool) {
        if keys.count == 1 {
            chunks = [("(?)", [.int(keys[0])])]
        } else if json {
            chunks = keys.isEmpty ? [] : [("(SELECT value FROM json_each(?))", [.string(Self.jsonArray(keys))])]
        } else {
            chunks = stride(from: 0, to: keys.count, by: Self.chunkSize).map { start in
                let chunk = keys[start..<min(start + Self.chunkSize, keys.count)]
                return ("(" + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")", chunk.map { .int($0) })
            }
        }
    }

    /// `[1,2,3]`, written digit by digit into one buffer (100,000 keys take about a millisecond).
    static func jsonArray(_ keys: [Int64]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.count * 8 + 2)
        bytes.append(UInt8(ascii: "["))
        var digits = [UInt8](repeating: 0, count: 20)
        for (i, key) in keys.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            var magnitude = key.magnitude
            if key < 0 { bytes.append(UInt8(ascii: "-")) }
            var n = 0
            repeat {
                digits[n] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                n += 1
            } while magnitude > 0
            while n > 0 {
                n -= 1
                bytes.append(digits[n])
            }
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension SQLiteConnection {
    /// Whether this SQLite has `json_each` (tried by preparing a statement that uses it; not counted as
    /// a query).
    var hasJSON: Bool {
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, "SELECT value FROM json_each('[1]')", -1, &raw, nil)
        sqlite3_finalize(raw)
        return rc == SQLITE_OK
    }
}

import CSQLite
import Foundation

/// A list of primary keys for one statement, so that loading the rows (or relationship members) of many
/// keys is one statement whatever their number.
///
/// Where SQLite has its JSON functions (built in since 3.38, and in the usual builds before), the keys
/// travel as one bound JSON array text, which SQL reads with the `json_each` table-valued function:
/// either as the right side of an `IN` (`IN (SELECT value FROM json_each(?))`), or joined
/// (`FROM json_each(?) k JOIN … ON … = k.value`), where `k.key` is each key's position in the list, so
/// that rows come back naming the key they were asked for without a lookup. One SQL text for every
/// count, so one prepared statement. One key is `IN (?)`. Without JSON, the keys go in chunks of 500
/// bound parameters (`IN (?, ?, …)`), one statement each: SQLite limits the parameters of a statement.
struct SQLiteKeyList {
    /// The keys of one statement.
    struct Chunk {
        /// The keys as the right side of an `IN`: `(SELECT value FROM json_each(?))` or `(?, ?, …)`.
        let inOperand: String
        /// The statement's arguments: the JSON array text, or the keys.
        let arguments: [Value]
        /// Whether the keys are one JSON array, which a query may join as `json_each(?) k`.
        let isJSON: Bool
        /// The positions in the whole list of the chunk's keys.
        let range: Range<Int>
    }

    /// The statements to run, in order.
    let chunks: [Chunk]

    /// The most keys bound as separate parameters in one statement when JSON is not available.
    static let chunkSize = 500

    /// The `FROM` item that joins a JSON key list: `k.key` is a key's position, `k.value` the key.
    static let joined = "json_each(?) k"

    init(_ keys: [Int64], json: Bool) {
        if keys.count == 1 {
            chunks = [Chunk(inOperand: "(?)", arguments: [.int(keys[0])], isJSON: false, range: 0..<1)]
        } else if json {
            chunks = keys.isEmpty ? [] : [Chunk(inOperand: "(SELECT value FROM json_each(?))", arguments: [.string(Self.jsonArray(keys))],
                                                isJSON: true, range: keys.indices)]
        } else {
            chunks = stride(from: 0, to: keys.count, by: Self.chunkSize).map { start in
                let range = start..<min(start + Self.chunkSize, keys.count)
                return Chunk(inOperand: "(" + Array(repeating: "?", count: range.count).joined(separator: ", ") + ")",
                             arguments: keys[range].map { .int($0) }, isJSON: false, range: range)
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

    /// For a chunk of bound parameters: the position of each key, to place the rows that name it.
    static func positions(_ keys: [Int64], _ chunk: Chunk) -> [Int64: Int] {
        var positions: [Int64: Int] = [:]
        positions.reserveCapacity(chunk.range.count)
        for i in chunk.range where positions[keys[i]] == nil { positions[keys[i]] = i }
        return positions
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

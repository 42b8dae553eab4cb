import Foundation
import OpenCoreData

/// Fetched rows as a text table or as JSON.
package enum RowOutput {
    /// A line saying what was fetched and how many objects, then a table: a header, a rule, one line per
    /// object. Long text is cut at ``cellWidth`` characters (with `…`); data shows its size.
    package static func table(_ fetched: FetchedRows) -> String {
        var about = ["model version \"\(fetched.versionName)\""]
        if let predicate = fetched.predicate { about.append("where \(predicate.predicateFormat)") }
        if !fetched.sortDescriptors.isEmpty {
            about.append("sorted by " + fetched.sortDescriptors.map { "\($0.key ?? "") \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", "))
        }
        let count = fetched.rows.count
        let title = "\(count) \(fetched.entity) object\(count == 1 ? "" : "s") (\(about.joined(separator: "; ")))\n"
        guard count > 0 else { return title }
        let cells = fetched.rows.map { $0.map(text) }
        let widths = fetched.columns.indices.map { column in ([fetched.columns[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0 }
        let rule = widths.map { String(repeating: "-", count: $0) }
        return title + TextTable.lines([fetched.columns, rule] + cells, indent: "")
    }

    /// The objects as a JSON array, one object each: `objectID` and every property (keys sorted), with
    /// `null`, numbers, booleans, strings; dates in ISO 8601, data in base64, related objects by ID.
    package static func json(_ fetched: FetchedRows) -> String {
        let objects = fetched.rows.map { row in
            JSONValue.object(Dictionary(zip(fetched.columns, row.map(JSONValue.init)), uniquingKeysWith: { a, _ in a }))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let data = (try? encoder.encode(JSONValue.array(objects))) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The longest text a table cell shows.
    static let cellWidth = 40

    static func text(_ cell: Cell) -> String {
        switch cell {
        case .null: return "nil"
        case .text(let text):
            let line = text.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
            return line.count > cellWidth ? String(line.prefix(cellWidth - 1)) + "…" : line
        case .integer(let value): return "\(value)"
        case .real(let value): return "\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .decimal(let value): return value
        case .date(let date): return iso8601(date)
        case .data(let data): return "<\(data.count) bytes>"
        case .object(let id): return id
        case .objects(let ids): return ids.count == 1 ? "1 object" : "\(ids.count) objects"
        }
    }

    /// `2024-03-15T09:30:00Z`, with milliseconds when the date has a fraction of a second.
    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        if date.timeIntervalSinceReferenceDate.rounded(.down) != date.timeIntervalSinceReferenceDate {
            formatter.formatOptions.insert(.withFractionalSeconds)
        }
        return formatter.string(from: date)
    }
}

/// A JSON value, encoded by `JSONEncoder`.
enum JSONValue: Encodable {
    case null, string(String), integer(Int64), real(Double), bool(Bool)
    case array([JSONValue]), object([String: JSONValue])

    init(_ cell: Cell) {
        switch cell {
        case .null: self = .null
        case .text(let text), .decimal(let text), .object(let text): self = .string(text)
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .bool(let value): self = .bool(value)
        case .date(let date): self = .string(RowOutput.iso8601(date))
        case .data(let data): self = .string(data.base64EncodedString())
        case .objects(let ids): self = .array(ids.map(JSONValue.string))
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        }
    }
}

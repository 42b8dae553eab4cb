import Foundation

/// Values as the PostgreSQL store's layout keeps them (docs/PostgreSQL.md, "Types"): the same
/// representation as Core Data's SQLite layout — booleans 0/1, dates as seconds since 2001-01-01,
/// decimals as double precision, UUIDs as their 16 bytes, URLs as text, strings in NFC.
extension PostgresDatum {
    /// `value` as a bound parameter; a collection or an object cannot be one.
    init(binding value: Value) throws {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .int(b ? 1 : 0)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .decimal(let d): self = .double(d.nearestDouble)
        case .string(let s): self = .text(StoredText.store(s))
        case .date(let d): self = .double(d.timeIntervalSinceReferenceDate)
        case .data(let d): self = .bytes(d)
        case .uuid(let u): self = .bytes(withUnsafeBytes(of: u.uuid) { Data($0) })
        case .url(let u): self = .text(u.absoluteString)
        case .array(let items) where items.allSatisfy({ if case .int = $0 { true } else { false } }):
            self = .intArray(items.map { if case .int(let i) = $0 { i } else { 0 } })
        case .array, .set, .object, .collection:
            throw PostgresWireError(sqlState: nil, message: "a collection or object cannot be bound as a SQL parameter", sql: nil)
        }
    }

    /// The cell read as an attribute of `type` stores it.
    func value(as type: NSAttributeType) -> Value {
        if case .null = self { return .null }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if case .double(let d) = self { return .double(d) }
            return integer.map { .int($0) } ?? .null
        case .booleanAttributeType: return integer.map { .bool($0 != 0) } ?? .null
        case .doubleAttributeType, .floatAttributeType: return real.map { .double($0) } ?? .null
        case .decimalAttributeType: return real.map { .decimal(Decimal(shortestDigitsOf: $0) ?? Decimal($0)) } ?? .null
        case .dateAttributeType: return real.map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
        case .stringAttributeType: return text.map { .string($0) } ?? .null
        case .URIAttributeType: return text.flatMap { URL(string: $0) }.map { .url($0) } ?? .null
        case .binaryDataAttributeType, .transformableAttributeType: return bytes.map { .data($0) } ?? .null
        case .UUIDAttributeType:
            guard let b = bytes, b.count == 16 else { return .null }
            return .uuid(UUID(uuid: b.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
        case .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType: return dynamicValue
        }
    }

    /// The cell as the server typed it (aggregates and expressions).
    var dynamicValue: Value {
        switch self {
        case .null: return .null
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .text(let s): return .string(s)
        case .bytes(let d): return .data(d)
        case .bool(let b): return .bool(b)
        case .intArray(let items): return .array(items.map { .int($0) })
        }
    }

    var integer: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d): return Int64(exactly: d.rounded(.towardZero))
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    var real: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    var text: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    var bytes: Data? {
        if case .bytes(let d) = self { return d }
        return nil
    }
}

extension Array where Element == PostgresDatum {
    /// Parameters for `values`, in order.
    init(binding values: [Value]) throws {
        self = try values.map { try PostgresDatum(binding: $0) }
    }
}

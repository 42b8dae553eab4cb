import Foundation

/// A `Codable` struct stored as a composite attribute (SwiftData's layout: a column per field): its fields
/// found by decoding the type once from placeholders, values to and from the composite's dictionary. Fields
/// are the standard value types (optional or not); a nested struct, an array or a keyed enum is refused
/// with an error naming it.
enum CompositeCoding {
    struct Field: Equatable {
        let name: String
        let type: Any.Type
        let optional: Bool
        static func == (lhs: Field, rhs: Field) -> Bool { lhs.name == rhs.name && lhs.type == rhs.type && lhs.optional == rhs.optional }
    }

    struct Unsupported: Error, CustomStringConvertible {
        let description: String
    }

    /// The standard value types a field may have.
    static let leafTypes: [Any.Type] = [String.self, Bool.self, Int.self, Int64.self, Int32.self, Int16.self, Int8.self,
                                        UInt.self, UInt64.self, UInt32.self, UInt16.self, UInt8.self, Double.self, Float.self,
                                        Date.self, Data.self, UUID.self, URL.self, Decimal.self]

    static func isLeaf(_ type: Any.Type) -> Bool { leafTypes.contains { $0 == type } }

    /// The field type a type name (`"Double"`, `"Optional<Date>"`) stands for.
    static func leafType(named name: String) -> Any.Type? {
        for type in leafTypes {
            if "\(type)" == name { return type }
            if "\(optionalType(type))" == name { return optionalType(type) }
        }
        return nil
    }

    /// The fields of `type`, in the order its `init(from:)` decodes them.
    static func fields(of type: any Decodable.Type) throws -> [Field] {
        let probe = Probe()
        do { _ = try type.init(from: ProbeDecoder(probe: probe)) } catch let error as Unsupported {
            throw Unsupported(description: "\(type): \(error)")
        } catch {
            throw Unsupported(description: "\(type) does not decode from placeholder values (\(error)); only structs of standard value types are stored")
        }
        guard !probe.fields.isEmpty else { throw Unsupported(description: "\(type) decodes no keyed fields") }
        return probe.fields
    }

    /// The composite's dictionary of `value`: its fields by name (absent when `nil`).
    static func dictionary(of value: any Encodable) throws -> [String: Any] {
        let box = EncodedFields()
        try value.encode(to: FieldEncoder(box: box))
        if let problem = box.problem { throw Unsupported(description: "\(type(of: value)): \(problem)") }
        return box.values
    }

    /// A value of `type` from the composite's dictionary.
    static func value(_ type: any Decodable.Type, from dictionary: [String: Any]) throws -> Any {
        try type.init(from: FieldDecoder(values: dictionary))
    }

    /// `raw` (what the store holds) as the field type `type`.
    static func leaf(_ raw: Any, as type: Any.Type) -> Any? {
        if Swift.type(of: raw) == type { return raw }
        if let number = raw as? NSNumber, let converted = ModelValues.number(number, as: type) { return converted }
        if type == UUID.self, let text = raw as? String { return UUID(uuidString: text) }
        if type == URL.self, let text = raw as? String { return URL(string: text) }
        return nil
    }
}

// MARK: - Probing the fields

final class Probe {
    var fields: [CompositeCoding.Field] = []
    func note(_ key: any CodingKey, _ type: Any.Type, optional: Bool) throws {
        guard CompositeCoding.isLeaf(type) else {
            throw CompositeCoding.Unsupported(description: "field \(key.stringValue) has type \(type), which a composite attribute cannot hold")
        }
        fields.append(.init(name: key.stringValue, type: type, optional: optional))
    }
}

struct ProbeDecoder: Decoder {
    let probe: Probe
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeContainer<Key>(probe: probe))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw CompositeCoding.Unsupported(description: "an unkeyed (array) value cannot be a composite attribute")
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw CompositeCoding.Unsupported(description: "a single value (an enum or wrapper) is not a composite attribute")
    }
}

/// Answers each decode with a placeholder and records the key and type.
struct ProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: Probe
    var codingPath: [any CodingKey] = []
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try probe.note(key, type, optional: false)
        return try Self.placeholder(type)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try probe.note(key, type, optional: true)
        return nil
    }
    // The standard types' own overloads (a synthesized `init(from:)` calls these): each records an optional field.
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(type, key) }

    private func optional<T>(_ type: T.Type, _ key: Key) throws -> T? {
        try probe.note(key, type, optional: true)
        return nil
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw CompositeCoding.Unsupported(description: "field \(key.stringValue) is a nested container")
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw CompositeCoding.Unsupported(description: "field \(key.stringValue) is an array")
    }
    func superDecoder() throws -> any Decoder { throw CompositeCoding.Unsupported(description: "a superclass's fields") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw CompositeCoding.Unsupported(description: "field \(key.stringValue) is a nested value") }

    static func placeholder<T>(_ type: T.Type) throws -> T {
        let value: Any? = switch type {
        case is String.Type: ""
        case is Bool.Type: false
        case is Int.Type: 0 as Int
        case is Int64.Type: 0 as Int64
        case is Int32.Type: 0 as Int32
        case is Int16.Type: 0 as Int16
        case is Int8.Type: 0 as Int8
        case is UInt.Type: 0 as UInt
        case is UInt64.Type: 0 as UInt64
        case is UInt32.Type: 0 as UInt32
        case is UInt16.Type: 0 as UInt16
        case is UInt8.Type: 0 as UInt8
        case is Double.Type: 0.0 as Double
        case is Float.Type: 0 as Float
        case is Date.Type: Date(timeIntervalSince1970: 0)
        case is Data.Type: Data()
        case is UUID.Type: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        case is URL.Type: URL(string: "about:blank")
        case is Decimal.Type: Decimal(0)
        default: nil
        }
        guard let typed = value as? T else { throw CompositeCoding.Unsupported(description: "a field of type \(T.self)") }
        return typed
    }
}

// MARK: - Encoding a value's fields

final class EncodedFields {
    var values: [String: Any] = [:]
    var problem: String?
}

struct FieldEncoder: Encoder {
    let box: EncodedFields
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(FieldContainer<Key>(box: box)) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        box.problem = "an unkeyed (array) value cannot be a composite attribute"
        return DiscardingUnkeyed()
    }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        box.problem = "a single value (an enum or wrapper) is not a composite attribute"
        return DiscardingSingle()
    }
}

struct FieldContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodedFields
    var codingPath: [any CodingKey] = []
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard CompositeCoding.isLeaf(T.self) else {
            box.problem = box.problem ?? "field \(key.stringValue) has type \(T.self), which a composite attribute cannot hold"
            return
        }
        box.values[key.stringValue] = value
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        box.problem = box.problem ?? "field \(key.stringValue) is a nested container"
        return KeyedEncodingContainer(FieldContainer<NestedKey>(box: EncodedFields()))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        box.problem = box.problem ?? "field \(key.stringValue) is an array"
        return DiscardingUnkeyed()
    }
    mutating func superEncoder() -> any Encoder { FieldEncoder(box: EncodedFields()) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { FieldEncoder(box: EncodedFields()) }
}

/// Where an unsupported shape's values go (the encoder has recorded the problem).
struct DiscardingUnkeyed: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] = []
    var count = 0
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FieldContainer<NestedKey>(box: EncodedFields()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { FieldEncoder(box: EncodedFields()) }
}

struct DiscardingSingle: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] = []
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}

// MARK: - Decoding a value from its fields

struct FieldDecoder: Decoder {
    let values: [String: Any]
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(FieldValues<Key>(values: values))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw CompositeCoding.Unsupported(description: "a composite attribute holds keyed fields only")
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw CompositeCoding.Unsupported(description: "a composite attribute holds keyed fields only")
    }
}

struct FieldValues<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let values: [String: Any]
    var codingPath: [any CodingKey] = []
    var allKeys: [Key] { values.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }
    func decodeNil(forKey key: Key) throws -> Bool { values[key.stringValue] == nil || values[key.stringValue] is NSNull }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let raw = values[key.stringValue], !(raw is NSNull) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "the composite has no value for \(key.stringValue)"))
        }
        guard let value = CompositeCoding.leaf(raw, as: T.self) as? T else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath + [key], debugDescription: "the store holds \(raw)"))
        }
        return value
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw CompositeCoding.Unsupported(description: "field \(key.stringValue) is a nested container")
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw CompositeCoding.Unsupported(description: "field \(key.stringValue) is an array")
    }
    func superDecoder() throws -> any Decoder { FieldDecoder(values: [:]) }
    func superDecoder(forKey key: Key) throws -> any Decoder { FieldDecoder(values: [:]) }
}

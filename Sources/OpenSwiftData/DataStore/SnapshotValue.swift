import Foundation
import OpenCoreData

/// One value of a ``DefaultSnapshot``, tagged with its kind so that a snapshot decodes without its schema:
/// a stored attribute's value, a composite attribute's fields, an array of values (a transformable
/// attribute's), or a relationship's destinations.
enum SnapshotValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    case decimal(Decimal)
    case array([SnapshotValue])
    case fields([String: SnapshotValue])
    case model(PersistentIdentifier)
    case models([PersistentIdentifier])

    /// A value as a managed object holds it (`nil` for none); `nil` when it is of no kind a snapshot keeps.
    init?(stored value: Any?) {
        switch value {
        case nil, is NSNull: self = .null
        case let v as Bool: self = .bool(v)
        case let v as any BinaryInteger: self = .int(Int64(truncatingIfNeeded: v))
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as String: self = .string(v)
        case let v as Date: self = .date(v)
        case let v as Data: self = .data(v)
        case let v as UUID: self = .uuid(v)
        case let v as URL: self = .url(v)
        case let v as Decimal: self = .decimal(v)
        case let v as [String: Any]:
            var fields: [String: SnapshotValue] = [:]
            for (key, field) in v {
                guard let value = SnapshotValue(stored: field) else { return nil }
                fields[key] = value
            }
            self = .fields(fields)
        case let v as [Any]:
            var items: [SnapshotValue] = []
            for item in v {
                guard let value = SnapshotValue(stored: item) else { return nil }
                items.append(value)
            }
            self = .array(items)
        default: return nil
        }
    }

    /// The value as a managed object holds it (`nil` for `.null`; relationships are not stored values).
    var stored: Any? {
        switch self {
        case .null, .model, .models: nil
        case .bool(let v): v
        case .int(let v): v
        case .double(let v): v
        case .string(let v): v
        case .date(let v): v
        case .data(let v): v
        case .uuid(let v): v
        case .url(let v): v
        case .decimal(let v): v
        case .array(let v): v.map { $0.stored ?? NSNull() }
        case .fields(let v): v.compactMapValues(\.stored)
        }
    }

    /// The value with each referenced identifier replaced as `map` says.
    func remapped(_ map: [PersistentIdentifier: PersistentIdentifier]) -> SnapshotValue {
        switch self {
        case .model(let id): .model(map[id] ?? id)
        case .models(let ids): .models(ids.map { map[$0] ?? $0 })
        default: self
        }
    }
}

extension SnapshotValue: Codable {
    private enum Kind: String, CodingKey {
        case null, bool, int, double, string, date, data, uuid, url, decimal, array, fields, model, models
    }

    /// Decodes `{"kind": value}`.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Kind.self)
        guard let kind = c.allKeys.first, c.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a snapshot value is an object with one key naming its kind (int, string, date, ...)"))
        }
        switch kind {
        case .null: self = .null
        case .bool: self = .bool(try c.decode(Bool.self, forKey: kind))
        case .int: self = .int(try c.decode(Int64.self, forKey: kind))
        case .double: self = .double(try c.decode(Double.self, forKey: kind))
        case .string: self = .string(try c.decode(String.self, forKey: kind))
        case .date: self = .date(try c.decode(Date.self, forKey: kind))
        case .data: self = .data(try c.decode(Data.self, forKey: kind))
        case .uuid: self = .uuid(try c.decode(UUID.self, forKey: kind))
        case .url: self = .url(try c.decode(URL.self, forKey: kind))
        case .decimal: self = .decimal(try c.decode(Decimal.self, forKey: kind))
        case .array: self = .array(try c.decode([SnapshotValue].self, forKey: kind))
        case .fields: self = .fields(try c.decode([String: SnapshotValue].self, forKey: kind))
        case .model: self = .model(try c.decode(PersistentIdentifier.self, forKey: kind))
        case .models: self = .models(try c.decode([PersistentIdentifier].self, forKey: kind))
        }
    }

    /// Encodes `{"kind": value}`.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Kind.self)
        switch self {
        case .null: try c.encodeNil(forKey: .null)
        case .bool(let v): try c.encode(v, forKey: .bool)
        case .int(let v): try c.encode(v, forKey: .int)
        case .double(let v): try c.encode(v, forKey: .double)
        case .string(let v): try c.encode(v, forKey: .string)
        case .date(let v): try c.encode(v, forKey: .date)
        case .data(let v): try c.encode(v, forKey: .data)
        case .uuid(let v): try c.encode(v, forKey: .uuid)
        case .url(let v): try c.encode(v, forKey: .url)
        case .decimal(let v): try c.encode(v, forKey: .decimal)
        case .array(let v): try c.encode(v, forKey: .array)
        case .fields(let v): try c.encode(v, forKey: .fields)
        case .model(let v): try c.encode(v, forKey: .model)
        case .models(let v): try c.encode(v, forKey: .models)
        }
    }
}

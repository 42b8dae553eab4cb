import Foundation

/// The value kinds beyond the store's own types: an enum with a raw value (stored as the raw value), an array of
/// standard values (transformable), a `Codable` struct (a composite attribute's dictionary).
enum ValueKinds {
    /// The raw value type of an enum with a standard raw value.
    static func rawValueType(_ type: Any.Type) -> Any.Type? {
        func raw<R: RawRepresentable>(_: R.Type) -> Any.Type { R.RawValue.self }
        guard let representable = type as? any RawRepresentable.Type else { return nil }
        let rawType = raw(representable)
        return CompositeCoding.isLeaf(rawType) ? rawType : nil
    }

    /// The element type of an array of standard values.
    static func leafArrayElement(_ type: Any.Type) -> Any.Type? {
        guard let array = unwrappedType(type).type as? any ValueArray.Type, CompositeCoding.isLeaf(array.elementType) else { return nil }
        return array.elementType
    }

    /// What the store keeps of `value`: the raw value of an enum, the fields of a `Codable` struct, `value` itself
    /// otherwise.
    static func stored(_ value: Any) -> Any {
        if CompositeCoding.isLeaf(type(of: value)) || value is [Any] { return value }
        if let representable = value as? any RawRepresentable, rawValueType(type(of: value)) != nil { return representable.rawValue }
        if let encodable = value as? any Encodable {
            do { return try CompositeCoding.dictionary(of: encodable) } catch {
                fatalError("\(type(of: value)) cannot be stored: \(error)")
            }
        }
        return value
    }

    /// A stored value as `type` when it is one of these kinds; `nil` when `type` is none of them.
    static func value(_ raw: Any?, as type: Any.Type) throws -> Any? {
        guard let raw else { return nil }
        if let element = leafArrayElement(type), let array = raw as? [Any] {
            guard let make = type as? any ValueArray.Type else { return nil }
            return make.make(try array.map { item in
                guard let value = CompositeCoding.leaf(item, as: element) else { throw CompositeCoding.Unsupported(description: "\(item) is no \(element)") }
                return value
            })
        }
        if let representable = type as? any RawRepresentable.Type, let rawType = rawValueType(type) {
            func make<R: RawRepresentable>(_: R.Type) -> R? { (CompositeCoding.leaf(raw, as: rawType) as? R.RawValue).flatMap(R.init(rawValue:)) }
            guard let made = make(representable) else { throw CompositeCoding.Unsupported(description: "\(raw) is no raw value of \(type)") }
            return made
        }
        if let decodable = type as? any Decodable.Type, let fields = raw as? [String: Any] {
            return try CompositeCoding.value(decodable, from: fields)
        }
        return nil
    }
}

/// An array, seen through `Any`: its element type, and an array made from elements.
protocol ValueArray {
    static var elementType: Any.Type { get }
    static func make(_ elements: [Any]) -> Any
}

extension Array: ValueArray {
    static var elementType: Any.Type { Element.self }
    static func make(_ elements: [Any]) -> Any { elements.map { $0 as! Element } }
}

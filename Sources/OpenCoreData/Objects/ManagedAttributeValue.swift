import Foundation

/// Not in Core Data: a value as an object's storage slot holds it, handed between a `@Managed` property's
/// accessors and the value types below without boxing it in `Any`.
public struct ManagedStorageValue {
    let value: Value
}

/// Not in Core Data: the Swift types a `@Managed` property may have for an attribute — the types Xcode's
/// class generation writes for `@NSManaged` properties (`String`, `Int16`…`Int64`, `Int`, `Double`,
/// `Float`, `Bool`, `Decimal`, `NSNumber`, `NSDecimalNumber`, `Date`, `Data`, `UUID`, `URL`, and the
/// optionals of each; `TimeInterval`, a `Double`, for a date with "Use Scalar Type"). The requirements are called by the code the macro generates; the conformances
/// are OpenCoreData's own (a custom type is a transformable attribute's value instead).
public protocol ManagedAttributeValue {
    /// The value a slot holds as this type; `nil` when it has none (a nil slot for a non-optional type
    /// that has no zero, or a value of another kind).
    static func _managedValue(from storage: ManagedStorageValue) -> Self?
    /// The value as a slot holds it.
    var _managedStorageValue: ManagedStorageValue { get }
    /// Whether a property of this type fits an attribute of `type` (checked when the model loads).
    static func _managedFits(_ type: NSAttributeType) -> Bool
}

extension Optional: ManagedAttributeValue where Wrapped: ManagedAttributeValue {
    /// `nil` for a nil slot, else the wrapped type's reading.
    public static func _managedValue(from storage: ManagedStorageValue) -> Self? {
        if case .null = storage.value { return .some(nil) }
        return Wrapped._managedValue(from: storage).map { .some($0) }
    }
    /// A nil slot for `nil`.
    public var _managedStorageValue: ManagedStorageValue {
        switch self {
        case .none: return ManagedStorageValue(value: .null)
        case .some(let wrapped): return wrapped._managedStorageValue
        }
    }
    /// As the wrapped type.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { Wrapped._managedFits(type) }
}

extension String: ManagedAttributeValue {
    /// A String attribute's text.
    public static func _managedValue(from storage: ManagedStorageValue) -> String? {
        if case .string(let s) = storage.value { return s }
        return nil
    }
    /// The text.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .string(self)) }
    /// String attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { type == .stringAttributeType }
}

/// Integer attributes read as Core Data's scalar accessors read them: nil is 0.
private func integer<T: FixedWidthInteger>(_ storage: ManagedStorageValue) -> T? {
    switch storage.value {
    case .int(let i): return T(truncatingIfNeeded: i)
    case .null: return 0
    case .bool(let b): return b ? 1 : 0
    case .double(let d): return T(exactly: d.rounded(.towardZero))
    case .decimal(let d): return T(exactly: NSDecimalNumber(decimal: d).int64Value)
    default: return nil
    }
}

private let integerTypes: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType]

extension Int16: ManagedAttributeValue {
    /// The integer (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: ManagedStorageValue) -> Int16? { integer(storage) }
    /// The integer.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .int(Int64(self))) }
    /// Integer attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { integerTypes.contains(type) }
}

extension Int32: ManagedAttributeValue {
    /// The integer (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: ManagedStorageValue) -> Int32? { integer(storage) }
    /// The integer.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .int(Int64(self))) }
    /// Integer attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { integerTypes.contains(type) }
}

extension Int64: ManagedAttributeValue {
    /// The integer (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: ManagedStorageValue) -> Int64? { integer(storage) }
    /// The integer.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .int(self)) }
    /// Integer attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { integerTypes.contains(type) }
}

extension Int: ManagedAttributeValue {
    /// The integer (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: ManagedStorageValue) -> Int? { integer(storage) }
    /// The integer.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .int(Int64(self))) }
    /// Integer attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { integerTypes.contains(type) }
}

extension Double: ManagedAttributeValue {
    /// The number (0 for nil, as Core Data's scalar accessors read it). For a date attribute — the
    /// `TimeInterval` property Xcode writes with "Use Scalar Type" — the date's seconds since the reference
    /// date (2001-01-01 00:00:00 UTC), as Core Data's scalar date accessors return it.
    public static func _managedValue(from storage: ManagedStorageValue) -> Double? {
        if case .double(let d) = storage.value { return d }
        if case .null = storage.value { return 0 }
        if case .date(let date) = storage.value { return date.timeIntervalSinceReferenceDate }
        return storage.value.doubleValue
    }
    /// The number (the setter makes a date of it for a date attribute).
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .double(self)) }
    /// Double and Float attributes, and Date attributes (as `TimeInterval`, seconds since 2001-01-01).
    public static func _managedFits(_ type: NSAttributeType) -> Bool {
        type == .doubleAttributeType || type == .floatAttributeType || type == .dateAttributeType
    }
}

extension Float: ManagedAttributeValue {
    /// The number (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: ManagedStorageValue) -> Float? {
        Double._managedValue(from: storage).map { Float($0) }
    }
    /// The number.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .double(Double(self))) }
    /// Float and Double attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { type == .doubleAttributeType || type == .floatAttributeType }
}

extension Bool: ManagedAttributeValue {
    /// The flag (false for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: ManagedStorageValue) -> Bool? {
        switch storage.value {
        case .bool(let b): return b
        case .null: return false
        case .int(let i): return i != 0
        default: return nil
        }
    }
    /// The flag.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .bool(self)) }
    /// Boolean attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { type == .booleanAttributeType }
}

extension Decimal: ManagedAttributeValue {
    /// The decimal.
    public static func _managedValue(from storage: ManagedStorageValue) -> Decimal? {
        switch storage.value {
        case .decimal(let d): return d
        case .int(let i): return Decimal(i)
        default: return nil
        }
    }
    /// The decimal.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .decimal(self)) }
    /// Decimal attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { type == .decimalAttributeType }
}

extension NSNumber: ManagedAttributeValue {
    /// The number as `value(forKey:)` returns it (an `NSDecimalNumber` for a decimal attribute); an
    /// `NSDecimalNumber` property gets any number as a decimal number.
    public static func _managedValue(from storage: ManagedStorageValue) -> Self? {
        let value = storage.value
        guard value.isNumber else { return nil }
        if Self.self == NSDecimalNumber.self {
            switch value {
            case .decimal(let d): return NSDecimalNumber(decimal: d) as? Self
            case .int(let i): return NSDecimalNumber(decimal: Decimal(i)) as? Self
            default:
                guard let d = value.doubleValue, let decimal = Decimal(shortestDigitsOf: d) else { return nil }
                return NSDecimalNumber(decimal: decimal) as? Self
            }
        }
        return value.anyValue as? Self
    }
    /// The number's value (a decimal for an `NSDecimalNumber`).
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: Value(any: self)) }
    /// Numeric attributes (an `NSDecimalNumber` fits decimal attributes only).
    public static func _managedFits(_ type: NSAttributeType) -> Bool {
        if Self.self == NSDecimalNumber.self { return type == .decimalAttributeType }
        return integerTypes.contains(type) || [.doubleAttributeType, .floatAttributeType, .booleanAttributeType, .decimalAttributeType].contains(type)
    }
}

extension Date: ManagedAttributeValue {
    /// The date.
    public static func _managedValue(from storage: ManagedStorageValue) -> Date? {
        if case .date(let d) = storage.value { return d }
        return nil
    }
    /// The date.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .date(self)) }
    /// Date attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { type == .dateAttributeType }
}

extension Data: ManagedAttributeValue {
    /// The bytes.
    public static func _managedValue(from storage: ManagedStorageValue) -> Data? {
        if case .data(let d) = storage.value { return d }
        return nil
    }
    /// The bytes.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .data(self)) }
    /// Binary data attributes, and transformable ones (whose values are kept as data).
    public static func _managedFits(_ type: NSAttributeType) -> Bool { type == .binaryDataAttributeType || type == .transformableAttributeType }
}

extension UUID: ManagedAttributeValue {
    /// The UUID.
    public static func _managedValue(from storage: ManagedStorageValue) -> UUID? {
        if case .uuid(let u) = storage.value { return u }
        return nil
    }
    /// The UUID.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .uuid(self)) }
    /// UUID attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { type == .UUIDAttributeType }
}

extension URL: ManagedAttributeValue {
    /// The URL.
    public static func _managedValue(from storage: ManagedStorageValue) -> URL? {
        if case .url(let u) = storage.value { return u }
        return nil
    }
    /// The URL.
    public var _managedStorageValue: ManagedStorageValue { ManagedStorageValue(value: .url(self)) }
    /// URI attributes.
    public static func _managedFits(_ type: NSAttributeType) -> Bool { type == .URIAttributeType }
}

/// A transformable attribute's value as a slot keeps it (data) and back. Linux Foundation has no
/// `ValueTransformer`: an `NSCoding` object is archived with `NSKeyedArchiver` (the format of Core Data's
/// default transformer, `NSSecureUnarchiveFromData`), a `Codable` value is encoded as JSON (an addition),
/// `Data` is kept as it is.
enum ManagedTransform {
    static func encode(_ value: Any?, property: String) -> Value {
        guard let value = value.flatMap(flattenOptional) else { return .null }
        if let data = value as? Data { return .data(data) }
        if let object = value as? NSObject & NSCoding {
            guard let data = try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false) else {
                fatalError("@Managed property \(property): cannot archive \(type(of: object))")
            }
            return .data(data)
        }
        if let encodable = value as? any Encodable {
            do { return .data(try JSONEncoder().encode(encodable)) } catch {
                fatalError("@Managed property \(property): cannot encode \(type(of: value)) (\(error))")
            }
        }
        fatalError("@Managed property \(property): a transformable attribute's value must be Data, an NSCoding object or Codable; \(type(of: value)) is none")
    }

    static func decode<T>(_ value: Value, as _: T.Type, property: String) -> T? {
        guard case .data(let data) = value else {
            if case .null = value { return Optional<Any>.none as? T }
            return value.anyValue as? T
        }
        if let data = data as? T { return data }
        let type = unwrappedType(T.self)
        if type is (NSObject & NSCoding).Type {
            guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
            unarchiver.requiresSecureCoding = false
            return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? T
        }
        if let decodable = type as? any Decodable.Type {
            return (try? JSONDecoder().decode(decodable, from: data)) as? T
        }
        return nil
    }

    /// `Wrapped` for an optional type, the type itself otherwise.
    static func unwrappedType(_ type: Any.Type) -> Any.Type {
        (type as? any OptionalType.Type)?.wrappedType ?? type
    }
}

/// Lets the type of an optional name its wrapped type.
protocol OptionalType { static var wrappedType: Any.Type { get } }
extension Optional: OptionalType { static var wrappedType: Any.Type { Wrapped.self } }

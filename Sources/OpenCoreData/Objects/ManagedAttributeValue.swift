import Foundation

extension _ManagedMacroSupport {
    /// A value as an object's storage slot holds it, handed between a `@Managed` property's accessors and
    /// the value types below without boxing it in `Any`.
    public struct StorageValue {
        let value: Value
    }

    /// The Swift types a `@Managed` property may have for an attribute, and their conversions to and from
    /// a storage slot. Which attribute types each fits, and which Xcode writes for an attribute type, are
    /// in the table of supported types (``ManagedAttributeTypes``), which lists every conforming type; the
    /// conformances are OpenCoreData's own (a custom type is a transformable attribute's value instead).
    public protocol AttributeValue {
        /// The value a slot holds as this type; `nil` when it has none (a nil slot for a non-optional
        /// type that has no zero, or a value of another kind).
        static func _managedValue(from storage: StorageValue) -> Self?
        /// The value as a slot holds it.
        var _managedStorageValue: StorageValue { get }
    }
}

extension Optional: _ManagedMacroSupport.AttributeValue where Wrapped: _ManagedMacroSupport.AttributeValue {
    /// `nil` for a nil slot, else the wrapped type's reading.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Self? {
        if case .null = storage.value { return .some(nil) }
        return Wrapped._managedValue(from: storage).map { .some($0) }
    }
    /// A nil slot for `nil`.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue {
        switch self {
        case .none: return _ManagedMacroSupport.StorageValue(value: .null)
        case .some(let wrapped): return wrapped._managedStorageValue
        }
    }
}

extension String: _ManagedMacroSupport.AttributeValue {
    /// A String attribute's text.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> String? {
        if case .string(let s) = storage.value { return s }
        return nil
    }
    /// The text.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .string(self)) }
}

/// Integer attributes read as Core Data's scalar accessors read them: nil is 0.
private func integer<T: FixedWidthInteger>(_ storage: _ManagedMacroSupport.StorageValue) -> T? {
    switch storage.value {
    case .int(let i): return T(truncatingIfNeeded: i)
    case .null: return 0
    case .bool(let b): return b ? 1 : 0
    case .double(let d): return T(exactly: d.rounded(.towardZero))
    case .decimal(let d): return T(exactly: NSDecimalNumber(decimal: d).int64Value)
    default: return nil
    }
}

extension Int16: _ManagedMacroSupport.AttributeValue {
    /// The integer (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Int16? { integer(storage) }
    /// The integer.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .int(Int64(self))) }
}

extension Int32: _ManagedMacroSupport.AttributeValue {
    /// The integer (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Int32? { integer(storage) }
    /// The integer.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .int(Int64(self))) }
}

extension Int64: _ManagedMacroSupport.AttributeValue {
    /// The integer (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Int64? { integer(storage) }
    /// The integer.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .int(self)) }
}

extension Int: _ManagedMacroSupport.AttributeValue {
    /// The integer (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Int? { integer(storage) }
    /// The integer.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .int(Int64(self))) }
}

extension Double: _ManagedMacroSupport.AttributeValue {
    /// The number (0 for nil, as Core Data's scalar accessors read it). For a date attribute — the
    /// `TimeInterval` property Xcode writes with "Use Scalar Type" — the date's seconds since the reference
    /// date (2001-01-01 00:00:00 UTC), as Core Data's scalar date accessors return it.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Double? {
        if case .double(let d) = storage.value { return d }
        if case .null = storage.value { return 0 }
        if case .date(let date) = storage.value { return date.timeIntervalSinceReferenceDate }
        return storage.value.doubleValue
    }
    /// The number (the setter makes a date of it for a date attribute).
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .double(self)) }
}

extension Float: _ManagedMacroSupport.AttributeValue {
    /// The number (0 for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Float? {
        Double._managedValue(from: storage).map { Float($0) }
    }
    /// The number.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .double(Double(self))) }
}

extension Bool: _ManagedMacroSupport.AttributeValue {
    /// The flag (false for nil, as Core Data's scalar accessors read it).
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Bool? {
        switch storage.value {
        case .bool(let b): return b
        case .null: return false
        case .int(let i): return i != 0
        default: return nil
        }
    }
    /// The flag.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .bool(self)) }
}

extension Decimal: _ManagedMacroSupport.AttributeValue {
    /// The decimal.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Decimal? {
        switch storage.value {
        case .decimal(let d): return d
        case .int(let i): return Decimal(i)
        default: return nil
        }
    }
    /// The decimal.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .decimal(self)) }
}

extension NSNumber: _ManagedMacroSupport.AttributeValue {
    /// The number as `value(forKey:)` returns it (an `NSDecimalNumber` for a decimal attribute); an
    /// `NSDecimalNumber` property gets any number as a decimal number.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Self? {
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
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: Value(any: self)) }
}

extension Date: _ManagedMacroSupport.AttributeValue {
    /// The date.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Date? {
        if case .date(let d) = storage.value { return d }
        return nil
    }
    /// The date.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .date(self)) }
}

extension Data: _ManagedMacroSupport.AttributeValue {
    /// The bytes.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> Data? {
        if case .data(let d) = storage.value { return d }
        return nil
    }
    /// The bytes.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .data(self)) }
}

extension UUID: _ManagedMacroSupport.AttributeValue {
    /// The UUID.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> UUID? {
        if case .uuid(let u) = storage.value { return u }
        return nil
    }
    /// The UUID.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .uuid(self)) }
}

extension URL: _ManagedMacroSupport.AttributeValue {
    /// The URL.
    public static func _managedValue(from storage: _ManagedMacroSupport.StorageValue) -> URL? {
        if case .url(let u) = storage.value { return u }
        return nil
    }
    /// The URL.
    public var _managedStorageValue: _ManagedMacroSupport.StorageValue { _ManagedMacroSupport.StorageValue(value: .url(self)) }
}

import Foundation
import OpenCoreData

/// A managed model's attribute read straight from its object's slot, for the types models use most: the
/// `@Managed` accessors' typed getters (no key lookup, no `Any`). `nil` for any other type (read through
/// `value(forKey:)` and ``ModelValues``).
@usableFromInline enum TypedSlots {
    @inlinable @inline(__always)
    static func read<Value>(_ object: NSManagedObject, _ property: _ManagedMacroSupport.Property, as _: Value.Type) -> Value? {
        if Value.self == String.self { return cast(_ManagedMacroSupport.get(object, property, as: String.self), to: Value.self) }
        if Value.self == Int.self { return cast(_ManagedMacroSupport.get(object, property, as: Int.self), to: Value.self) }
        if Value.self == Double.self { return cast(_ManagedMacroSupport.get(object, property, as: Double.self), to: Value.self) }
        if Value.self == Bool.self { return cast(_ManagedMacroSupport.get(object, property, as: Bool.self), to: Value.self) }
        if Value.self == String?.self { return cast(_ManagedMacroSupport.get(object, property, as: String?.self), to: Value.self) }
        if Value.self == Date.self { return cast(_ManagedMacroSupport.get(object, property, as: Date.self), to: Value.self) }
        if Value.self == Date?.self { return cast(_ManagedMacroSupport.get(object, property, as: Date?.self), to: Value.self) }
        if Value.self == Int64.self { return cast(_ManagedMacroSupport.get(object, property, as: Int64.self), to: Value.self) }
        return nil
    }

    /// Sets an attribute of one of those types through the typed setters; `false` for any other type.
    @inline(__always)
    static func write<Value>(_ object: NSManagedObject, _ property: _ManagedMacroSupport.Property, _ value: Value) -> Bool {
        if Value.self == String.self { _ManagedMacroSupport.set(object, cast(value, to: String.self), property); return true }
        if Value.self == Int.self { _ManagedMacroSupport.set(object, cast(value, to: Int.self), property); return true }
        if Value.self == Double.self { _ManagedMacroSupport.set(object, cast(value, to: Double.self), property); return true }
        if Value.self == Bool.self { _ManagedMacroSupport.set(object, cast(value, to: Bool.self), property); return true }
        if Value.self == Date.self { _ManagedMacroSupport.set(object, cast(value, to: Date.self), property); return true }
        if Value.self == Int64.self { _ManagedMacroSupport.set(object, cast(value, to: Int64.self), property); return true }
        return false
    }

    /// ``write(_:_:_:)`` for a value seen as `Any` (a detached model's values moving to its object): the `Any` is
    /// opened, so its dynamic type is compared with each typed setter's (no dynamic cast, which for each type the
    /// value is not would look for a bridge).
    static func write(_ object: NSManagedObject, _ property: _ManagedMacroSupport.Property, any value: Any) -> Bool {
        func opened<Value>(_ value: Value) -> Bool { write(object, property, value) }
        return _openExistential(value, do: opened)
    }

    /// `value` as `Value`, which the caller checked is its type.
    @usableFromInline @inline(__always)
    static func cast<T, Value>(_ value: T, to _: Value.Type) -> Value { unsafeBitCast(value, to: Value.self) }
}

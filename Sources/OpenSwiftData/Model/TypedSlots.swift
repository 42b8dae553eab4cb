import Foundation
import OpenCoreData

/// A managed model's attribute read straight from its object's slot, for the types models use most: the
/// `@Managed` accessors' typed getters (no key lookup, no `Any`). `nil` for any other type (read through
/// `value(forKey:)` and ``ModelValues``).
enum TypedSlots {
    @inline(__always)
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

    /// `value` as `Value`, which the caller checked is its type.
    @inline(__always)
    private static func cast<T, Value>(_ value: T, to _: Value.Type) -> Value { unsafeBitCast(value, to: Value.self) }
}

import Foundation
import OpenCoreData

/// Between a model's Swift values and what its managed object stores: models are their managed objects,
/// arrays of models to-many sets, numbers `NSNumber`s.
struct ModelValues {
    unowned let context: ModelContext

    /// The stored form of `value` (inserting each detached model it reaches, as SwiftData does).
    func encode(_ value: Any) -> Any? {
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedAny else { return nil }
            return encode(wrapped)
        }
        if let model = value as? any PersistentModel { return context.managedObject(for: model) }
        if let array = value as? any ModelArray { return Set(array.models.map { context.managedObject(for: $0) }) }
        return ValueKinds.stored(value)
    }

    /// The context of the first inserted model `value` holds (a model, an optional one, an array of them).
    static func context(of value: Any) -> ModelContext? {
        func context<M: PersistentModel>(_ model: M) -> ModelContext? { model.storage.context }
        if let optional = value as? any OptionalValue { return optional.wrappedAny.flatMap { Self.context(of: $0) } }
        if let model = value as? any PersistentModel { return context(model) }
        if let array = value as? any ModelArray { return array.models.lazy.compactMap { context($0) }.first }
        return nil
    }

    /// A stored value as `type`; traps when the store holds what `type` cannot be (a model class out of
    /// step with the store's model).
    func decode<Value>(_ raw: Any?, as type: Value.Type) -> Value {
        guard let value = decodeAny(raw, as: type) as? Value else {
            fatalError("The store's value \(raw.map { "\($0)" } ?? "nil") is not a \(Value.self)")
        }
        return value
    }

    private func decodeAny(_ raw: Any?, as type: Any.Type) -> Any? {
        switch ValueShape.of(type) {
        case .optional(let none, let wrapped):
            guard let raw, !(raw is NSNull) else { return none }
            return decodeAny(raw, as: wrapped)
        case .model:
            guard let object = raw as? NSManagedObject else { return raw }
            return context.model(for: object)
        case .models(let array):
            return array.make(Self.objects(raw).map { context.model(for: $0) })
        case .stored:
            return raw
        case .other:
            break
        }
        if let number = raw as? NSNumber, let converted = Self.number(number, as: type) { return converted }
        do {
            return try ValueKinds.value(raw, as: type) ?? raw
        } catch {
            fatalError("The store's value \(raw.map { "\($0)" } ?? "nil") does not make a \(type): \(error)")
        }
    }

    private static func objects(_ raw: Any?) -> [NSManagedObject] {
        if let set = raw as? Set<NSManagedObject> { return Array(set) }
        if let set = raw as? NSSet { return set.compactMap { $0 as? NSManagedObject } }
        if let array = raw as? [NSManagedObject] { return array }
        return []
    }

    /// A number as the property's numeric type (the store gives `NSNumber`s).
    static func number(_ number: NSNumber, as type: Any.Type) -> Any? {
        switch type {
        case is Int.Type: return number.intValue
        case is Int64.Type: return number.int64Value
        case is Int32.Type: return number.int32Value
        case is Int16.Type: return number.int16Value
        case is Int8.Type: return number.int8Value
        case is UInt.Type: return number.uintValue
        case is UInt64.Type: return number.uint64Value
        case is UInt32.Type: return number.uint32Value
        case is UInt16.Type: return number.uint16Value
        case is UInt8.Type: return number.uint8Value
        case is Double.Type: return number.doubleValue
        case is Float.Type: return number.floatValue
        case is Bool.Type: return number.boolValue
        case is Decimal.Type: return (number as? NSDecimalNumber)?.decimalValue ?? Decimal(string: number.stringValue)
        default: return nil
        }
    }

    /// What a detached model's property reads before it was set: `nil` or no models.
    static func emptyValue(of type: Any.Type) -> Any? {
        if let optional = type as? any OptionalValue.Type { return optional.noneAny }
        if let array = type as? any ModelArray.Type { return array.make([]) }
        return nil
    }
}

/// What a property's type is, found once per type (the casts that tell are slow on every read).
enum ValueShape {
    case optional(none: Any, wrapped: Any.Type)
    case model
    case models(any ModelArray.Type)
    /// The store's value is the property's value as it is (`String`, `Date`, `Data`, `UUID`, `URL`).
    case stored
    /// Numbers, enums, structs, arrays of values: converted each read.
    case other

    private static let lock = NSLock()
    nonisolated(unsafe) private static var shapes: [ObjectIdentifier: ValueShape] = [:]

    static func of(_ type: Any.Type) -> ValueShape {
        let id = ObjectIdentifier(type)
        if let known = lock.withLock({ shapes[id] }) { return known }
        let shape: ValueShape
        if let optional = type as? any OptionalValue.Type {
            shape = .optional(none: optional.noneAny, wrapped: optional.wrappedType)
        } else if type is any PersistentModel.Type {
            shape = .model
        } else if let array = type as? any ModelArray.Type {
            shape = .models(array)
        } else if [String.self, Date.self, Data.self, UUID.self, URL.self].contains(where: { $0 == type }) {
            shape = .stored
        } else {
            shape = .other
        }
        lock.withLock { shapes[id] = shape }
        return shape
    }
}

/// `Optional`, seen through `Any`.
protocol OptionalValue {
    static var wrappedType: Any.Type { get }
    static var noneAny: Any { get }
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    static var wrappedType: Any.Type { Wrapped.self }
    static var noneAny: Any { Optional<Wrapped>.none as Any }
    var wrappedAny: Any? { self.map { $0 as Any } }
}

/// Mirrors SwiftData's `RelationshipCollection`: the type of a to-many relationship's value (an array of models).
public protocol RelationshipCollection {
    /// Mirrors `PersistentElement`: the related model type.
    associatedtype PersistentElement: PersistentModel
}

extension Array: RelationshipCollection where Element: PersistentModel {
    /// The array's model type.
    public typealias PersistentElement = Element
}

/// An array of models (a to-many relationship), seen through `Any`.
protocol ModelArray {
    static var elementType: any PersistentModel.Type { get }
    static func make(_ models: [any PersistentModel]) -> Any
    /// The models (an empty `[String]` would cast to `[any PersistentModel]`: the element type decides).
    var models: [any PersistentModel] { get }
}

extension Array: ModelArray where Element: PersistentModel {
    static var elementType: any PersistentModel.Type { Element.self }
    var models: [any PersistentModel] { map { $0 } }
    static func make(_ models: [any PersistentModel]) -> Any { models.map { $0 as! Element } }
}

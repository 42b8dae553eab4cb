import Foundation

/// A transformable attribute's value as the app gave it (or as its transformer made it from the
/// store's data), kept whole: not converted to a predicate `Value` (an `[String]` stays an `[String]`).
/// Two are equal when their values are equal as `AnyHashable`, or are the same object.
struct TransformableValue: OpaqueValueBox, @unchecked Sendable {
    let value: Any
    var boxedValue: Any { value }

    static func == (a: Self, b: Self) -> Bool {
        if let x = a.value as? AnyHashable, let y = b.value as? AnyHashable { return x == y }
        if let x = a.value as? NSObject, let y = b.value as? NSObject { return x.isEqual(y) }
        return false
    }

    func hash(into hasher: inout Hasher) {
        if let x = value as? AnyHashable { hasher.combine(x) }
    }

    /// The slot value for what the app set: `nil` (or `NSNull`) is nil, anything else is kept whole.
    static func slotValue(_ any: Any?) -> Value {
        guard let any, let unwrapped = flattenOptional(any), !(unwrapped is NSNull) else { return .null }
        if let v = unwrapped as? Value { return v }
        return .object(AnyHashable(TransformableValue(value: unwrapped)))
    }
}

extension NSAttributeDescription {
    /// The transformer of a transformable attribute: the one registered under `valueTransformerName`, or
    /// `NSSecureUnarchiveFromData` when the name is nil or empty (Core Data's default). `nil` when the
    /// name is registered to nothing.
    var transformer: ValueTransformer? {
        let name = valueTransformerName.flatMap { $0.isEmpty ? nil : $0 } ?? NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue
        return ValueTransformer(forName: NSValueTransformerName(name))
    }

    /// The name used for `transformer`, for messages.
    var transformerNameForMessages: String {
        valueTransformerName.flatMap { $0.isEmpty ? nil : $0 } ?? NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue
    }
}

/// How a transformable attribute's values become the data the store keeps, and back. Core Data runs a
/// custom transformer forward on save (`transformedValue(_:)` gives the data) and in reverse on fetch;
/// the unarchiving transformers (`NSSecureUnarchiveFromDataTransformer` and its subclasses, named for
/// the fetch direction) the other way round.
struct AttributeTransform {
    let attribute: NSAttributeDescription

    private func unarchives(_ t: ValueTransformer) -> Bool { t is NSSecureUnarchiveFromDataTransformer }

    /// The data to store for a value, or an error naming entity, attribute, transformer and value.
    func data(for value: Value, entityName: String) throws -> Value {
        guard case .object(let boxed) = value, let box = boxed.base as? TransformableValue else {
            if value.isNull { return .null }
            return try data(forAny: value.anyValue as Any, entityName: entityName)
        }
        return try data(forAny: box.value, entityName: entityName)
    }

    private func data(forAny any: Any, entityName: String) throws -> Value {
        let name = attribute.transformerNameForMessages
        func failure(_ reason: String) -> CoreDataError {
            CoreDataError(NSManagedObjectValidationError,
                          "\(entityName).\(attribute.name): the value transformer \(name) cannot transform the value (a \(type(of: any))): \(reason).",
                          userInfo: [NSValidationKeyErrorKey: attribute.name, NSValidationValueErrorKey: any])
        }
        guard let transformer = attribute.transformer else {
            throw failure("no transformer is registered under that name (ValueTransformer.setValueTransformer(_:forName:))")
        }
        let result: Any?
        if unarchives(transformer) {
            if let refusal = (transformer as? NSSecureUnarchiveFromDataTransformer)?.refusal(any) { throw failure(refusal) }
            result = transformer.reverseTransformedValue(any)
        } else {
            result = transformer.transformedValue(any)
        }
        guard let result, let unwrapped = flattenOptional(result) else { throw failure("the transformer returned nil") }
        if let data = unwrapped as? Data { return .data(data) }
        throw failure("the transformer returned a \(type(of: unwrapped)), not Data")
    }

    /// The value for stored data; `nil` if the transformer cannot make one.
    func value(for data: Data) -> Value? {
        guard let transformer = attribute.transformer else { return nil }
        let type = Swift.type(of: transformer)
        let result: Any?
        if unarchives(transformer) {
            result = transformer.transformedValue(data)
        } else {
            guard type.allowsReverseTransformation() else { return nil }
            result = transformer.reverseTransformedValue(data)
        }
        guard let result else { return nil }
        let v = TransformableValue.slotValue(result)
        return v.isNull ? nil : v
    }
}

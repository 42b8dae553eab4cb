import Foundation

/// Mirrors SwiftData's `SchemaProperty`: what attributes and relationships of a schema have in common.
public protocol SchemaProperty: AnyObject, CustomDebugStringConvertible {
    /// Mirrors `name`.
    var name: String { get }
    /// Mirrors `originalName`: the property's name in the previous schema version (its name if unchanged).
    var originalName: String { get }
    /// Mirrors `valueType`: the property's Swift type.
    var valueType: any Any.Type { get }
    /// Mirrors `isAttribute`.
    var isAttribute: Bool { get }
    /// Mirrors `isRelationship`.
    var isRelationship: Bool { get }
    /// Mirrors `isOptional`: whether the value may be `nil`.
    var isOptional: Bool { get }
    /// Mirrors `isTransient`: whether the value is not stored.
    var isTransient: Bool { get }
    /// Mirrors `isUnique`.
    var isUnique: Bool { get }
}

extension SchemaProperty {
    /// The property as a debugger shows it.
    public var debugDescription: String {
        "\(Swift.type(of: self))(name: \(name), valueType: \(valueType)\(isOptional ? ", optional" : ""))"
    }
}

extension Schema {
    /// Mirrors SwiftData's `Schema.PropertyMetadata`: one persisted property as `@Model` describes it in
    /// ``PersistentModel/schemaMetadata``.
    public struct PropertyMetadata {
        let name: String
        let keypath: AnyKeyPath
        let defaultValue: Any?
        let metadata: (any SchemaProperty)?

        /// Mirrors `init(name:keypath:defaultValue:metadata:)`.
        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: (any SchemaProperty)?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }
    }
}

/// Whether `type` is `Optional<…>`, and the type it wraps.
func unwrappedType(_ type: Any.Type) -> (type: Any.Type, optional: Bool) {
    guard let optional = type as? any OptionalValue.Type else { return (type, false) }
    return (optional.wrappedType, true)
}

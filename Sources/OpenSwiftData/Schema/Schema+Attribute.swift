import Foundation
import OpenCoreData

extension Schema {
    /// Mirrors SwiftData's `Schema.Attribute`: a persisted value property. `@Attribute(…)` makes one without
    /// a name or type (its options); the schema makes the whole one from the model's metadata.
    public class Attribute: SchemaProperty, Hashable {
        /// Mirrors `name`.
        public var name: String
        /// Mirrors `originalName`.
        public var originalName: String
        /// Mirrors `options`.
        public var options: [Option]
        /// Mirrors `valueType`.
        public var valueType: any Any.Type
        /// Mirrors `defaultValue`: the property's initial value in the model class, if any.
        public var defaultValue: Any?
        /// Mirrors `hashModifier`: the Core Data version hash modifier.
        public var hashModifier: String?

        /// Mirrors `init(_:originalName:hashModifier:)` (what `@Attribute` writes).
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            (name, self.originalName, self.options, valueType, self.hashModifier) = ("", originalName ?? "", options, Any.self, hashModifier)
        }

        /// Mirrors `init(name:originalName:options:valueType:defaultValue:hashModifier:)`.
        public init(name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
                    defaultValue: Any? = nil, hashModifier: String? = nil) {
            (self.name, self.originalName, self.options, self.valueType) = (name, originalName ?? name, options, valueType)
            (self.defaultValue, self.hashModifier) = (defaultValue, hashModifier)
        }

        /// Mirrors `isAttribute`: `true`.
        public var isAttribute: Bool { true }
        /// Mirrors `isRelationship`: `false`.
        public var isRelationship: Bool { false }
        /// Mirrors `isOptional`: the value type is an `Optional`.
        public var isOptional: Bool { unwrappedType(valueType).optional }
        /// Mirrors `isTransient`: `.ephemeral`.
        public var isTransient: Bool { options.contains(.ephemeral) }
        /// Mirrors `isUnique`: `.unique`.
        public var isUnique: Bool { options.contains(.unique) }
        /// Mirrors `isTransformable`: `.transformable(by:)` (an array of values is stored transformable too).
        public var isTransformable: Bool { options.contains { $0.transformerName != nil } }

        /// Equal when the same property (name, type, options).
        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs.name == rhs.name && lhs.valueType == rhs.valueType && lhs.options == rhs.options
        }

        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        /// Mirrors SwiftData's `Schema.Attribute.Option`.
        public struct Option: Hashable, Sendable {
            enum Kind: Hashable, Sendable { case unique, externalStorage, preserveValueOnDeletion, ephemeral, transformable(String) }
            let kind: Kind

            /// Mirrors `unique`: no two models of the entity have the same value.
            public static var unique: Option { Option(kind: .unique) }
            /// Mirrors `externalStorage`: large data may be stored beside the store.
            public static var externalStorage: Option { Option(kind: .externalStorage) }
            /// Mirrors `preserveValueOnDeletion`: history keeps the value of a deleted model.
            public static var preserveValueOnDeletion: Option { Option(kind: .preserveValueOnDeletion) }
            /// Mirrors `ephemeral`: changes are tracked, the value is not stored.
            public static var ephemeral: Option { Option(kind: .ephemeral) }
            /// Mirrors `transformable(by:)` with a transformer class.
            public static func transformable(by transformerType: ValueTransformer.Type) -> Option {
                Option(kind: .transformable(String(describing: transformerType)))
            }
            /// Mirrors `transformable(by:)` with a registered transformer's name.
            public static func transformable(by transformerName: String) -> Option { Option(kind: .transformable(transformerName)) }

            var transformerName: String? {
                if case .transformable(let name) = kind { return name }
                return nil
            }
        }
    }
}

import Foundation

extension Schema {
    /// Mirrors SwiftData's `Schema.Relationship`: a property whose value is a model (to-one) or an array of
    /// models (to-many). `@Relationship(…)` makes one without a name or type; the schema makes the whole one.
    public final class Relationship: SchemaProperty, Hashable {
        /// Mirrors `name`.
        public var name: String
        /// Mirrors `originalName`.
        public var originalName: String
        /// Mirrors `options`.
        public var options: [Option]
        /// Mirrors `deleteRule`: what deleting the model does to the models this relationship holds.
        public var deleteRule: DeleteRule
        /// Mirrors `minimumModelCount`: to-many only; `0` for no minimum.
        public var minimumModelCount: Int?
        /// Mirrors `maximumModelCount`: to-many only; `0` for no maximum.
        public var maximumModelCount: Int?
        /// Mirrors `inverseKeyPath`: the relationship of the destination that mirrors this one, as declared.
        public var inverseKeyPath: AnyKeyPath?
        /// Mirrors `inverseName`: the inverse relationship's name, declared or inferred.
        public var inverseName: String?
        /// Mirrors `hashModifier`.
        public var hashModifier: String?
        /// Mirrors `keypath`: the model's key path of the property.
        public var keypath: AnyKeyPath?
        /// Mirrors `valueType`.
        public var valueType: any Any.Type
        /// Mirrors `destination`: the destination entity's name.
        public var destination: String

        /// Mirrors `init(_:deleteRule:minimumModelCount:maximumModelCount:originalName:inverse:hashModifier:)`
        /// (what `@Relationship` writes).
        public init(_ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
                    maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
                    hashModifier: String? = nil) {
            (name, self.originalName, self.options, self.deleteRule) = ("", originalName ?? "", options, deleteRule)
            (self.minimumModelCount, self.maximumModelCount) = (minimumModelCount, maximumModelCount)
            (inverseKeyPath, self.hashModifier, valueType, destination) = (inverse, hashModifier, Any.self, "")
        }

        /// Mirrors `isAttribute`: `false`.
        public var isAttribute: Bool { false }
        /// Mirrors `isRelationship`: `true`.
        public var isRelationship: Bool { true }
        /// Mirrors `isToOneRelationship`: the value is a model, not an array of them.
        public var isToOneRelationship: Bool { !(unwrappedType(valueType).type is any ModelArray.Type) }
        /// Mirrors `isOptional`: a to-one whose type is an `Optional`; a to-many may always be empty.
        public var isOptional: Bool { !isToOneRelationship || unwrappedType(valueType).optional }
        /// Mirrors `isTransient`: `false`.
        public var isTransient: Bool { false }
        /// Mirrors `isUnique`: `.unique`.
        public var isUnique: Bool { options.contains(.unique) }

        /// Equal when the same property (name, destination, delete rule, inverse).
        public static func == (lhs: Relationship, rhs: Relationship) -> Bool {
            lhs.name == rhs.name && lhs.destination == rhs.destination && lhs.deleteRule == rhs.deleteRule
                && lhs.inverseName == rhs.inverseName && lhs.isToOneRelationship == rhs.isToOneRelationship
        }

        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        /// Mirrors SwiftData's `Schema.Relationship.DeleteRule` (Core Data's delete rules).
        public enum DeleteRule: String, Codable, Hashable, Sendable {
            /// Mirrors `nullify`: the related models lose their reference to the deleted one.
            case nullify
            /// Mirrors `cascade`: the related models are deleted too.
            case cascade
            /// Mirrors `deny`: the model cannot be deleted while it has related models (the save fails).
            case deny
            /// Mirrors `noAction`: nothing is done to the related models.
            case noAction
        }

        /// Mirrors SwiftData's `Schema.Relationship.Option`.
        public struct Option: Hashable, Sendable {
            let isUnique: Bool
            /// Mirrors `unique`.
            public static var unique: Option { Option(isUnique: true) }
        }
    }
}

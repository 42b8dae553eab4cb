import Foundation

extension Schema {
    /// Mirrors SwiftData's `Schema.Entity`: one model type's persisted shape.
    public final class Entity: Hashable, CustomDebugStringConvertible {
        /// Mirrors `name`: the model class's name.
        public var name: String
        /// Mirrors `properties`: attributes and relationships, in the class's order.
        public var properties: [any SchemaProperty]
        /// Mirrors `uniquenessConstraints`: the property names whose values (together) are unique.
        public var uniquenessConstraints: [[String]]
        /// Mirrors `indices`: the property names of each index.
        public var indices: [[String]] = []
        /// Mirrors `superentity`: the entity this one was given to as a subentity (model classes make none:
        /// docs/SwiftData.md).
        public private(set) weak var superentity: Entity?
        /// Mirrors `superentityName`.
        public var superentityName: String? { superentity?.name }
        /// Mirrors `subentities`.
        public private(set) var subentities: Set<Entity> = []
        /// The model class (`nil` for an entity made by name).
        let modelType: (any PersistentModel.Type)?

        /// Mirrors `init(_:)`: an entity with a name and no properties.
        public convenience init(_ name: String) { self.init(name, properties: []) }

        /// Mirrors `init(_:properties:)`.
        public convenience init(_ name: String, properties: any SchemaProperty...) { self.init(name, properties: properties) }

        /// Mirrors `init(_:subentities:properties:)`: an entity whose subentities inherit its properties.
        public convenience init(_ name: String, subentities: Entity..., properties: any SchemaProperty...) {
            self.init(name, properties: properties)
            self.subentities = Set(subentities)
            for subentity in subentities { subentity.superentity = self }
        }

        init(_ name: String, properties: [any SchemaProperty], modelType: (any PersistentModel.Type)? = nil) {
            self.name = name
            self.properties = properties
            self.modelType = modelType
            uniquenessConstraints = properties.filter(\.isUnique).map { [$0.name] }
        }

        /// Mirrors `attributes`.
        public var attributes: Set<Attribute> { Set(properties.compactMap { $0 as? Attribute }) }
        /// Mirrors `attributesByName`.
        public var attributesByName: [String: Attribute] { Dictionary(attributes.map { ($0.name, $0) }) { a, _ in a } }
        /// Mirrors `relationships`.
        public var relationships: Set<Relationship> { Set(properties.compactMap { $0 as? Relationship }) }
        /// Mirrors `relationshipsByName`.
        public var relationshipsByName: [String: Relationship] { Dictionary(relationships.map { ($0.name, $0) }) { a, _ in a } }
        /// Mirrors `storedProperties`: the properties that are not transient.
        public var storedProperties: [any SchemaProperty] { properties.filter { !$0.isTransient } }
        /// Mirrors `storedPropertiesByName`.
        public var storedPropertiesByName: [String: any SchemaProperty] { Dictionary(storedProperties.map { ($0.name, $0) }) { a, _ in a } }
        /// Mirrors `inheritedProperties`: the properties of the superentities, nearest last.
        public var inheritedProperties: [any SchemaProperty] { superentity.map { $0.inheritedProperties + $0.properties } ?? [] }
        /// Mirrors `inheritedPropertiesByName`.
        public var inheritedPropertiesByName: [String: any SchemaProperty] { Dictionary(inheritedProperties.map { ($0.name, $0) }) { a, _ in a } }

        /// Equal when the same name and properties.
        public static func == (lhs: Entity, rhs: Entity) -> Bool {
            lhs.name == rhs.name && lhs.properties.map(\.name) == rhs.properties.map(\.name)
                && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships
        }

        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        /// The entity as a debugger shows it.
        public var debugDescription: String { "Entity(\(name): \(properties.map(\.name).joined(separator: ", ")))" }
    }
}

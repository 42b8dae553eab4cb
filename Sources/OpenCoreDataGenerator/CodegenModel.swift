import Foundation

/// What class generation needs to know of a model: its entities with their class names, parents, codegen
/// settings, attributes and relationships, as the model file writes them. Not in Core Data.
///
/// The generator reads model files itself (``init(contentsOf:)``, with the library's XML parser) rather
/// than through `NSManagedObjectModel`: a build tool is built for the build machine apart from the app's
/// own modules, so depending on OpenCoreData would compile the whole library twice in every clean build
/// of a target using the plugin (docs/ModelFiles.md, "Generated classes", has the figures).
public struct CodegenModel: Sendable, Equatable {
    /// The entities, in the file's order.
    public var entities: [Entity]

    /// A model of `entities`.
    public init(entities: [Entity]) {
        self.entities = entities
    }

    /// The entity named `name`.
    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }

    /// An `<entity>`: what the generator writes from it.
    public struct Entity: Sendable, Equatable {
        /// `name`.
        public var name: String
        /// `representedClassName` as written (`Animal`, `App.Animal`, `.Animal`); `nil` when absent.
        public var representedClassName: String?
        /// `parentEntity`: the superentity's name.
        public var parentEntity: String?
        /// `isAbstract`.
        public var isAbstract: Bool
        /// `codeGenerationType`: Xcode's Codegen setting (`class`, `category`, absent for manual).
        public var codeGenerationType: String?
        /// The `<attribute>`s, in the file's order.
        public var attributes: [Attribute]
        /// The `<relationship>`s, in the file's order.
        public var relationships: [Relationship]

        /// An entity with these settings.
        public init(name: String, representedClassName: String? = nil, parentEntity: String? = nil, isAbstract: Bool = false,
                    codeGenerationType: String? = nil, attributes: [Attribute] = [], relationships: [Relationship] = []) {
            self.name = name
            self.representedClassName = representedClassName
            self.parentEntity = parentEntity
            self.isAbstract = isAbstract
            self.codeGenerationType = codeGenerationType
            self.attributes = attributes
            self.relationships = relationships
        }
    }

    /// An `<attribute>`.
    public struct Attribute: Sendable, Equatable {
        /// `name`.
        public var name: String
        /// The type.
        public var type: AttributeType
        /// `usesScalarValueType`: Xcode's "Use Scalar Type".
        public var usesScalarValueType: Bool
        /// `customClassName`: the class of a transformable attribute's values (`NSArray`, `[String]`).
        public var customClassName: String?

        /// An attribute with these settings.
        public init(name: String, type: AttributeType, usesScalarValueType: Bool = false, customClassName: String? = nil) {
            self.name = name
            self.type = type
            self.usesScalarValueType = usesScalarValueType
            self.customClassName = customClassName
        }
    }

    /// An attribute's `attributeType`, spelled as the model file spells it.
    public enum AttributeType: String, Sendable, CaseIterable {
        /// `Integer 16`, `Integer 32`, `Integer 64`.
        case integer16 = "Integer 16", integer32 = "Integer 32", integer64 = "Integer 64"
        /// `Decimal`, `Double`, `Float`.
        case decimal = "Decimal", double = "Double", float = "Float"
        /// `String`, `Boolean`, `Date`.
        case string = "String", boolean = "Boolean", date = "Date"
        /// `Binary` (Binary Data), `UUID`, `URI`.
        case binary = "Binary", uuid = "UUID", uri = "URI"
        /// `Transformable`: values of `customClassName`'s type.
        case transformable = "Transformable"
        /// `ObjectID`, `Undefined` (also what an absent `attributeType` means).
        case objectID = "ObjectID", undefined = "Undefined"
        /// `Composite` (Xcode 15): a dictionary of the composite's elements' values.
        case composite = "Composite"
    }

    /// A `<relationship>`.
    public struct Relationship: Sendable, Equatable {
        /// `name`.
        public var name: String
        /// `destinationEntity`.
        public var destinationEntity: String
        /// `toMany`.
        public var isToMany: Bool
        /// `ordered`.
        public var isOrdered: Bool

        /// A relationship with these settings.
        public init(name: String, destinationEntity: String, isToMany: Bool = false, isOrdered: Bool = false) {
            self.name = name
            self.destinationEntity = destinationEntity
            self.isToMany = isToMany
            self.isOrdered = isOrdered
        }
    }
}

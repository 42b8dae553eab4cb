import Foundation
import Synchronization

/// Mirrors SwiftData's `Schema`: the entities of a set of model types (and of the types their
/// relationships reach), which a container's stores hold.
public final class Schema: Hashable, CustomDebugStringConvertible {
    /// Mirrors `entities`.
    public let entities: [Entity]
    /// Mirrors `entitiesByName`.
    public let entitiesByName: [String: Entity]
    /// Mirrors `version`.
    public let version: Version
    /// Mirrors `encodingVersion`.
    public let encodingVersion: Version = Schema.schemaEncodingVersion
    /// Mirrors `schemaEncodingVersion`.
    public static let schemaEncodingVersion = Version(1, 0, 0)
    /// What is wrong with the model types (an unsupported type, an inverse that names no relationship):
    /// a container made with this schema throws it.
    let problems: [String]

    /// Mirrors `init()`: no entities.
    public convenience init() { self.init([Entity](), version: Version(1, 0, 0)) }

    /// Mirrors `init(_:version:)` with entities.
    public convenience init(_ entities: Entity..., version: Version = Version(1, 0, 0)) { self.init(entities, version: version) }

    /// Mirrors `init(_:version:)` with model types: their entities and those of every model type their
    /// relationships reach.
    public convenience init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        let built = SchemaBuilder(types)
        self.init(built.entities, version: version, problems: built.problems)
    }

    /// Mirrors `init(_:version:)` with model types as arguments.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    init(_ entities: [Entity], version: Version, problems: [String] = []) {
        self.entities = entities
        self.entitiesByName = Dictionary(entities.map { ($0.name, $0) }) { a, _ in a }
        self.version = version
        self.problems = problems
    }

    /// Mirrors `entity(for:)`: the entity of a model type, if the schema has it.
    public func entity<T: PersistentModel>(for type: T.Type) -> Entity? { entitiesByName[Self.entityName(for: type)] }

    /// Mirrors `entityName(for:)`: the class's name (without its module).
    public static func entityName<T: PersistentModel>(for type: T.Type) -> String { name(of: type) }

    static func name(of type: any PersistentModel.Type) -> String {
        let id = ObjectIdentifier(type)
        if let known = entityNames.withLock({ $0[id] }) { return known }
        let name = String(describing: type).split(separator: ".").last.map(String.init) ?? String(describing: type)
        entityNames.withLock { $0[id] = name }
        return name
    }

    /// Entity names by model type (`String(describing:)` is slow, and inserts ask for it every time).
    private static let entityNames = Mutex<[ObjectIdentifier: String]>([:])

    /// The model type of an entity name.
    func modelType(named name: String) -> (any PersistentModel.Type)? { entitiesByName[name]?.modelType }

    /// Equal when the same entities and version.
    public static func == (lhs: Schema, rhs: Schema) -> Bool { lhs.version == rhs.version && lhs.entities == rhs.entities }

    /// Hashes the entity names.
    public func hash(into hasher: inout Hasher) { hasher.combine(entities.map(\.name)) }

    /// The schema as a debugger shows it.
    public var debugDescription: String { "Schema(\(version): \(entities.map(\.debugDescription).joined(separator: "; ")))" }

    /// Mirrors SwiftData's `Schema.Version`: a semantic version.
    public struct Version: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
        /// Mirrors `major`.
        public let major: Int
        /// Mirrors `minor`.
        public let minor: Int
        /// Mirrors `patch`.
        public let patch: Int

        /// Mirrors `init(_:_:_:)`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) { (self.major, self.minor, self.patch) = (major, minor, patch) }

        /// Mirrors `<`: by major, then minor, then patch.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// Mirrors `description`: `"1.2.3"`.
        public var description: String { "\(major).\(minor).\(patch)" }

        /// Mirrors `==`: the same three numbers.
        public static func == (lhs: Version, rhs: Version) -> Bool { (lhs.major, lhs.minor, lhs.patch) == (rhs.major, rhs.minor, rhs.patch) }

        /// Mirrors `hash(into:)`.
        public func hash(into hasher: inout Hasher) { hasher.combine(major); hasher.combine(minor); hasher.combine(patch) }

        private enum CodingKeys: String, CodingKey { case major, minor, patch }

        /// Mirrors `encode(to:)`: the three numbers, keyed.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(major, forKey: .major)
            try container.encode(minor, forKey: .minor)
            try container.encode(patch, forKey: .patch)
        }

        /// Mirrors `init(from:)`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(try container.decode(Int.self, forKey: .major), try container.decode(Int.self, forKey: .minor),
                      try container.decode(Int.self, forKey: .patch))
        }
    }
}

import Foundation
import OpenCoreData

/// Mirrors SwiftData's `ModelConfiguration`: one store of a container — where it is, which part of the
/// schema it holds, whether it may be saved. A URL may be a file (SQLite, in Core Data's format) or, with
/// `OpenCoreDataPostgres` linked, a `postgres://` URL (docs/PostgreSQL.md).
public struct ModelConfiguration: Hashable, Sendable {
    /// Mirrors `name`: the configuration's name (`"default"` unless given).
    public let name: String
    /// Mirrors `url`: the store's location (`/dev/null` for one stored in memory only).
    public let url: URL
    /// Mirrors `isStoredInMemoryOnly`.
    public let isStoredInMemoryOnly: Bool
    /// Mirrors `allowsSave`: whether contexts may save to the store (a read-only store when `false`).
    public let allowsSave: Bool
    /// Mirrors `groupContainer`.
    public let groupContainer: GroupContainer
    /// Mirrors `groupAppContainerIdentifier`: Linux has no app group containers, so always `nil`.
    public let groupAppContainerIdentifier: String? = nil
    /// Mirrors `schema`: the part of the container's schema this store holds (all of it when `nil`).
    public var schema: Schema? { schemaBox?.schema }
    private let schemaBox: SchemaBox?

    /// Mirrors `cloudKitDatabase`: Linux has no CloudKit; `.automatic` (the default) syncs nothing, as on a
    /// device without the entitlement, and `.private(_:)` makes the container throw.
    public let cloudKitDatabase: CloudKitDatabase

    /// Mirrors `init(_:schema:isStoredInMemoryOnly:allowsSave:groupContainer:cloudKitDatabase:)`: a store
    /// named `name` in the default directory (`NSPersistentContainer.defaultDirectoryURL()`, `NAME.store`).
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
                groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic) {
        let name = name ?? "default"
        let url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null")
            : NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("\(name).store")
        self.init(name: name, schema: schema, url: url, isStoredInMemoryOnly: isStoredInMemoryOnly, allowsSave: allowsSave,
                  groupContainer: groupContainer, cloudKitDatabase: cloudKitDatabase)
    }

    /// Mirrors `init(_:schema:url:allowsSave:cloudKitDatabase:)`: a store at `url`.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
                cloudKitDatabase: CloudKitDatabase = .automatic) {
        self.init(name: name ?? "default", schema: schema, url: url, isStoredInMemoryOnly: url.path == "/dev/null",
                  allowsSave: allowsSave, groupContainer: .none, cloudKitDatabase: cloudKitDatabase)
    }

    /// Mirrors `init(isStoredInMemoryOnly:)`. (A call spelled so reaches `init(_:schema:isStoredInMemoryOnly:allowsSave:groupContainer:cloudKitDatabase:)`,
    /// which does the same: Swift would find the two ambiguous otherwise.)
    @_disfavoredOverload
    public init(isStoredInMemoryOnly: Bool) { self.init(nil, isStoredInMemoryOnly: isStoredInMemoryOnly) }

    /// Mirrors `init(for:isStoredInMemoryOnly:)`: a store holding the given model types.
    @_disfavoredOverload
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    private init(name: String, schema: Schema?, url: URL, isStoredInMemoryOnly: Bool, allowsSave: Bool, groupContainer: GroupContainer,
                 cloudKitDatabase: CloudKitDatabase) {
        (self.name, self.url, self.isStoredInMemoryOnly, self.allowsSave) = (name, url, isStoredInMemoryOnly, allowsSave)
        (self.groupContainer, schemaBox, self.cloudKitDatabase) = (groupContainer, schema.map(SchemaBox.init), cloudKitDatabase)
    }

    /// Mirrors `cloudKitContainerIdentifier`: the container `.private(_:)` names.
    public var cloudKitContainerIdentifier: String? { cloudKitDatabase.containerIdentifier }

    /// Mirrors `validate()`: throws when the store's name cannot make a file name, or when it asks for a
    /// CloudKit container (Linux has no CloudKit).
    public func validate() throws {
        if let container = cloudKitDatabase.containerIdentifier {
            throw SwiftDataError(.loadIssueModelContainer, "configuration \(name) syncs with CloudKit container \(container): CloudKit is not available on Linux")
        }
        if name.contains("/") || name.contains("\0") { throw SwiftDataError(.configurationFileNameContainsInvalidCharacters, name) }
        if name.utf8.count > 255 { throw SwiftDataError(.configurationFileNameTooLong, name) }
    }

    /// Equal when naming the same store the same way.
    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        (lhs.name, lhs.url, lhs.isStoredInMemoryOnly, lhs.allowsSave) == (rhs.name, rhs.url, rhs.isStoredInMemoryOnly, rhs.allowsSave)
            && lhs.schema == rhs.schema
    }

    /// Hashes the name and URL.
    public func hash(into hasher: inout Hasher) { hasher.combine(name); hasher.combine(url) }

    /// Mirrors SwiftData's `ModelConfiguration.CloudKitDatabase`: which CloudKit database a store syncs with.
    public struct CloudKitDatabase: Hashable, Sendable {
        let containerIdentifier: String?
        let isAutomatic: Bool
        /// Mirrors `automatic`: the app's CloudKit container when it has the entitlement (never, on Linux).
        public static var automatic: CloudKitDatabase { CloudKitDatabase(containerIdentifier: nil, isAutomatic: true) }
        /// Mirrors `none`: no syncing.
        public static var none: CloudKitDatabase { CloudKitDatabase(containerIdentifier: nil, isAutomatic: false) }
        /// Mirrors `private(_:)`: the private database of a CloudKit container (refused on Linux).
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase {
            CloudKitDatabase(containerIdentifier: containerIdentifier, isAutomatic: false)
        }
    }

    /// Mirrors SwiftData's `ModelConfiguration.GroupContainer`. Linux has no app group containers: every
    /// choice stores where the configuration's URL says.
    public struct GroupContainer: Hashable, Sendable {
        let identifier: String?
        /// Mirrors `automatic`.
        public static var automatic: GroupContainer { GroupContainer(identifier: nil) }
        /// Mirrors `none`.
        public static var none: GroupContainer { GroupContainer(identifier: "") }
        /// Mirrors `identifier(_:)`.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(identifier: groupName) }
    }
}

/// A schema in a `Sendable` value (a schema is not changed once made).
private final class SchemaBox: @unchecked Sendable {
    let schema: Schema
    init(schema: Schema) { self.schema = schema }
}

import Foundation
import Logging

/// Mirrors `NSSQLiteStoreType`.
public let NSSQLiteStoreType = "SQLite"
/// Mirrors `NSInMemoryStoreType`. Our in-memory store is a SQLite in-memory database, so it behaves
/// exactly as the file store does (same SQL, same semantics), without a file.
public let NSInMemoryStoreType = "InMemory"

/// Mirrors Core Data's `NSPersistentStore`: one store added to a coordinator.
public class NSPersistentStore: NSObject, @unchecked Sendable {
    /// Mirrors `url`.
    public let url: URL?
    /// Mirrors `type`.
    public let type: String
    /// Mirrors `configurationName`.
    public let configurationName: String
    /// Mirrors `options`.
    public let options: [AnyHashable: Any]?
    let backend: SQLiteStore
    /// Queries run on the store so far (for tests that count queries). Not in Core Data.
    public var queryCount: Int { backend.queryCount }

    init(type: String, url: URL?, options: [AnyHashable: Any]?, model: NSManagedObjectModel, logger: Logger?) throws {
        self.type = type
        self.url = url
        self.options = options
        self.configurationName = "PF_DEFAULT_CONFIGURATION_NAME"
        self.backend = try SQLiteStore(url: type == NSInMemoryStoreType ? nil : url, model: model, logger: logger)
        super.init()
    }

    /// Mirrors `identifier`: the store's UUID, kept in its metadata.
    public var identifier: String! { backend.identifier }

    /// Mirrors `metadata`.
    public var metadata: [String: Any]! {
        ["NSStoreUUID": backend.identifier, "NSStoreType": type, "NSStoreModelVersionHash": backend.model.versionHash]
    }
}

/// Mirrors Core Data's `NSPersistentStoreDescription`: how to add a store.
public class NSPersistentStoreDescription: NSObject, @unchecked Sendable {
    /// Mirrors `url`.
    public var url: URL?
    /// Mirrors `type` (`NSSQLiteStoreType` by default).
    public var type: String = NSSQLiteStoreType
    /// Mirrors `configuration`.
    public var configuration: String?
    /// Mirrors `options`.
    public private(set) var options: [String: NSObject] = [:]
    /// Mirrors `shouldAddStoreAsynchronously` (stores are added synchronously on Linux; the flag is kept).
    public var shouldAddStoreAsynchronously = false
    /// Mirrors `isReadOnly`.
    public var isReadOnly = false

    public override init() { super.init() }

    /// Mirrors `init(url:)`.
    public convenience init(url: URL) {
        self.init()
        self.url = url
    }

    /// Mirrors `setOption(_:forKey:)`.
    public func setOption(_ option: NSObject?, forKey key: String) { options[key] = option }

    public override var description: String { "<NSPersistentStoreDescription> (type: \(type), url: \(url?.path ?? "nil"))" }
}

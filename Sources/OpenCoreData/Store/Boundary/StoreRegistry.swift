import Foundation
import Logging

/// What opening a store of a ``StoreKind`` is given.
package struct StoreOpenRequest {
    /// The type the store is added as (`NSSQLiteStoreType`, …).
    let type: String
    let url: URL?
    let model: NSManagedObjectModel
    /// The model configuration the store holds (`nil`: every entity).
    let configuration: String?
    let options: [AnyHashable: Any]?
    /// Where the store logs its SQL, when asked to.
    let logger: Logger?
    /// A model the store, if it migrates, tries first as the one it was made with (a staged migration's
    /// current stage).
    var knownSource: NSManagedObjectModel? = nil
}

/// A store type the library implements itself, beside an app's `NSAtomicStore` and `NSIncrementalStore`
/// subclasses: how to open one, and the file operations the coordinator's class methods run on a store
/// that is not added.
package protocol StoreKind: Sendable {
    /// Whether a store of this kind is named by its URL (`false`: the URL is ignored, as for
    /// `NSInMemoryStoreType`).
    var needsURL: Bool { get }
    /// Opens (creating or migrating as the options say) a store.
    func open(_ request: StoreOpenRequest) throws -> any StoreBackend
    /// `metadataForPersistentStore(ofType:at:options:)`: the metadata of a store that is not added.
    func metadata(at url: URL) throws -> [String: Any]
    /// `setMetadata(_:forPersistentStoreOfType:at:options:)`.
    func setMetadata(_ metadata: [String: Any], at url: URL) throws
    /// `destroyPersistentStore(at:ofType:options:)`: removes the store's data (nothing when there is none).
    func destroy(at url: URL, options: [AnyHashable: Any]?) throws
    /// `replacePersistentStore(at:…withPersistentStoreFrom:…)`: the destination's contents become the source's.
    func replace(at destination: URL, from source: URL) throws
    /// Runs a staged migration manager's stages on the store at `url` before it is added.
    var runsStagedMigrations: Bool { get }
}

/// The store types a coordinator can add, by type name: the library's own kinds and the classes apps
/// register (``NSPersistentStoreCoordinator/registerStoreClass(_:forStoreType:)``). The only way a store
/// is made.
package enum StoreRegistry {
    enum Entry {
        /// A store the library implements (SQLite, in memory, and kinds other targets register).
        case kind(any StoreKind)
        /// An app's (or the built-in binary and XML) `NSAtomicStore` / `NSIncrementalStore` subclass.
        case storeClass(NSPersistentStore.Type)
    }

    private static let entries = LockedValue<[String: Entry]>(
        builtInKinds.mapValues(Entry.kind).merging([NSBinaryStoreType: .storeClass(BinaryStore.self), NSXMLStoreType: .storeClass(XMLStore.self)]) { a, _ in a })

    /// What is registered for a type.
    static func entry(for type: String) -> Entry? { entries.withLock { $0[type] } }

    /// Every registration, by type.
    static var all: [String: Entry] { entries.withLock { $0 } }

    /// Registers (or, with `nil`, removes) a library store kind.
    static func register(_ kind: (any StoreKind)?, type: String) {
        entries.withLock { $0[type] = kind.map(Entry.kind) }
    }

    /// Registers (or, with `nil`, removes) a store class; the library's own kinds cannot be replaced this way.
    static func register(_ storeClass: NSPersistentStore.Type?, type: String) {
        entries.withLock { entries in
            if case .kind = entries[type] { return }
            entries[type] = storeClass.map(Entry.storeClass)
        }
    }

    /// The class registered for a type, if it is a class.
    static func storeClass(for type: String) -> NSPersistentStore.Type? {
        guard case .storeClass(let storeClass) = entry(for: type) else { return nil }
        return storeClass
    }

    /// The library kind registered for a type, if it is one.
    static func kind(for type: String) -> (any StoreKind)? {
        guard case .kind(let kind) = entry(for: type) else { return nil }
        return kind
    }

    /// The type a store at `url` opens as: a `postgres://` (or `postgresql://`) URL given with the
    /// default type, `NSSQLiteStoreType` (a description made from a URL has it), is a PostgreSQL store,
    /// which OpenCoreDataPostgres registers when it is linked.
    static func type(_ type: String, at url: URL?) throws -> String {
        guard type == NSSQLiteStoreType, let url, PostgresStoreKind.isPostgres(url) else { return type }
        guard entry(for: PostgresStoreKind.type) != nil else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError,
                                "\(PostgresStore.location(of: url)) is a PostgreSQL database: link the OpenCoreDataPostgres product to open it (docs/PostgreSQL.md).")
        }
        return PostgresStoreKind.type
    }

    /// The kind whose files `NSPersistentStore`'s own class methods read and write (Core Data's base
    /// class reads SQLite stores).
    static var defaultKind: any StoreKind { kind(for: NSSQLiteStoreType)! }
}

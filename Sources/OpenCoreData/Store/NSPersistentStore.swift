import Foundation
import Logging

/// Mirrors `NSSQLiteStoreType`.
public let NSSQLiteStoreType = "SQLite"
/// Mirrors `NSInMemoryStoreType`. Our in-memory store is a SQLite in-memory database, so it behaves
/// exactly as the file store does (same SQL, same semantics), without a file.
public let NSInMemoryStoreType = "InMemory"

/// Mirrors `NSReadOnlyPersistentStoreOption`: a store added with this option set to true (or through a
/// description whose `isReadOnly` is true) is opened with `SQLITE_OPEN_READONLY`. Fetches and counts
/// work; a save with changes throws `NSPersistentStoreSaveError` before anything is written, and the
/// context keeps its changes. The file must exist and hold a store. A WAL store in a directory where the
/// `-shm` file cannot be created is opened with SQLite's `immutable=1` (see docs/Store.md).
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"

/// Mirrors `NSPersistentStoreTimeoutOption`: how long, in seconds (an `NSNumber` or `Double`), a
/// connection waits for a lock another connection holds before it fails with `SQLITE_BUSY` (SQLite's busy
/// timeout). Without it: 10 seconds.
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"

/// Mirrors `NSSQLitePragmasOption`: a dictionary of SQLite pragmas (`["cache_size": 500]`,
/// `["journal_mode": "DELETE"]`) run on the store's writing connection once the store is open, after its
/// own settings, so that they may change them. A name that is not an identifier, or a pragma SQLite
/// refuses, makes adding the store fail with an error naming it.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"

/// Not in Core Data: lets a SQLite store be added to an existing database of another program (tables
/// but no `Z_METADATA`), creating the store's tables beside the others. Without it such a file is refused
/// with `NSPersistentStoreInvalidTypeError` and left untouched. Set it to `true` (a `Bool` or `NSNumber`).
public let OpenCoreDataAdoptForeignDatabaseOption = "OpenCoreDataAdoptForeignDatabaseOption"

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
    let backend: any StoreBackend
    /// Not in Core Data: queries run on the store so far, for the tests, demos and benchmarks that count
    /// queries. A test hook, not API: behind `@_spi(StoreDiagnostics)`, so that only a file that says
    /// `@_spi(StoreDiagnostics) import OpenCoreData` sees it (the benchmarks are another package).
    @_spi(StoreDiagnostics) public var queryCount: Int { backend.queryCount }

    private let versionHash: String

    init(type: String, url: URL?, options: [AnyHashable: Any]?, model: NSManagedObjectModel, logger: Logger?) throws {
        self.versionHash = model.versionHash
        self.type = type
        self.url = url
        self.options = options
        self.configurationName = "PF_DEFAULT_CONFIGURATION_NAME"
        self.backend = try openSQLiteStore(url: type == NSInMemoryStoreType ? nil : url, model: model, options: options, logger: logger)
        super.init()
    }

    /// Mirrors `isReadOnly` (from `NSReadOnlyPersistentStoreOption`). Read-only here: Core Data lets it be
    /// set, but our read-only store holds a read-only SQLite connection, so it is fixed when the store is added.
    public var isReadOnly: Bool { backend.isReadOnly }

    /// Mirrors `identifier`: the store's UUID, kept in its metadata.
    public var identifier: String! { backend.identifier }

    /// Mirrors `metadata`.
    public var metadata: [String: Any]! {
        [NSStoreUUIDKey: backend.identifier, NSStoreTypeKey: type, "NSStoreModelVersionHash": versionHash]
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
    /// Mirrors `isReadOnly`: as in Core Data, a convenience for `NSReadOnlyPersistentStoreOption` in `options`.
    public var isReadOnly: Bool {
        get { StoreOpenOptions.flag(options[NSReadOnlyPersistentStoreOption]) }
        set { options[NSReadOnlyPersistentStoreOption] = NSNumber(value: newValue) }
    }

    /// Mirrors `timeout`: `NSPersistentStoreTimeoutOption` in `options`, in seconds (Core Data's default,
    /// 240, is reported when the option is not set; the store's own default busy timeout is 10 seconds).
    public var timeout: TimeInterval {
        get { (options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue ?? 240 }
        set { options[NSPersistentStoreTimeoutOption] = NSNumber(value: newValue) }
    }

    /// Mirrors `sqlitePragmas`: the pragmas of `NSSQLitePragmasOption`.
    public var sqlitePragmas: [String: NSObject] {
        (options[NSSQLitePragmasOption] as? [String: NSObject])
            ?? (options[NSSQLitePragmasOption] as? NSDictionary).map { dictionary in
                Dictionary(uniqueKeysWithValues: dictionary.compactMap { key, value in (key as? String).map { ($0, value as! NSObject) } })
            } ?? [:]
    }

    /// Mirrors `setValue(_:forPragmaNamed:)`: sets (or, with `nil`, removes) one pragma of
    /// `NSSQLitePragmasOption`.
    public func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        var pragmas = sqlitePragmas
        pragmas[name] = value
        options[NSSQLitePragmasOption] = pragmas.isEmpty ? nil : NSDictionary(dictionary: pragmas)
    }

    public override init() { super.init() }

    /// Mirrors `init(url:)`.
    public convenience init(url: URL) {
        self.init()
        self.url = url
    }

    /// Mirrors `init(URL:)`, the Objective-C-era spelling of ``init(url:)``.
    public convenience init(URL url: URL) { self.init(url: url) }

    /// Mirrors `setOption(_:forKey:)`.
    public func setOption(_ option: NSObject?, forKey key: String) { options[key] = option }

    public override var description: String { "<NSPersistentStoreDescription> (type: \(type), url: \(url?.path ?? "nil"))" }
}

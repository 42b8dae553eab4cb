import Foundation
import Logging

/// Mirrors `NSSQLiteStoreType`.
public let NSSQLiteStoreType = "SQLite"
/// Mirrors `NSInMemoryStoreType`. Our in-memory store is a SQLite in-memory database, so it behaves
/// exactly as the file store does (same SQL, same semantics), without a file.
public let NSInMemoryStoreType = "InMemory"

/// Mirrors `NSReadOnlyPersistentStoreOption`: a store added with this option set to true (or through a
/// description whose `isReadOnly` is true) is opened read-only (SQLite: a read-only connection). Fetches and counts
/// work; a save with changes throws `NSPersistentStoreSaveError` before anything is written, and the
/// context keeps its changes. The file must exist and hold a store. A WAL store in a directory where the
/// `-shm` file cannot be created is opened with SQLite's `immutable=1` (see docs/Store.md).
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"

/// Mirrors `NSPersistentStoreTimeoutOption`: how long, in seconds (an `NSNumber` or `Double`), a
/// connection waits for a lock another connection holds before it fails as busy (SQLite's busy
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

/// Mirrors Core Data's `NSPersistentStore`: one store added to a coordinator. The SQLite and in-memory
/// stores are built in; apps add their own types by subclassing ``NSAtomicStore`` or ``NSIncrementalStore``
/// and registering the class (``NSPersistentStoreCoordinator/registerStoreClass(_:type:)``).
open class NSPersistentStore: NSObject, @unchecked Sendable {
    /// Mirrors `url`.
    open var url: URL?
    /// The type the store was added as.
    var storedType: String
    /// Mirrors `type`: the type the store was added as (subclasses may override it).
    open var type: String { storedType }
    /// Mirrors `configurationName`.
    open var configurationName: String
    /// Mirrors `options`.
    open var options: [AnyHashable: Any]?
    /// Mirrors `persistentStoreCoordinator`: the coordinator the store was made for.
    public private(set) weak var persistentStoreCoordinator: NSPersistentStoreCoordinator?
    /// What the coordinator asks of the store: set when the store is added (the SQLite store opens its
    /// file; a custom store gets an adapter around it, see Store/Custom).
    private var attachedBackend: (any StoreBackend)?
    var backend: any StoreBackend { attachedBackend! }
    /// The store's tag in its coordinator's keys (see `StoreRoutes`): 0 unless it shares a hierarchy
    /// with a store that was there first.
    var keyTag = 0
    /// Announces other coordinators' commits (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
    var remoteChangeWatch: (any RemoteChangeWatch)?
    /// Not in Core Data: queries run on the store so far, for the tests, demos and benchmarks that count
    /// queries. A test hook, not API: behind `@_spi(StoreDiagnostics)`, so that only a file that says
    /// `@_spi(StoreDiagnostics) import OpenCoreData` sees it (the benchmarks are another package).
    @_spi(StoreDiagnostics) public var queryCount: Int { backend.queryCount }

    private var storedIdentifier: String?
    private var storedMetadata: [String: Any]?
    private var readOnlyFlag: Bool

    /// A store of one of the library's own kinds (``StoreRegistry``): the SQLite and in-memory stores, and
    /// kinds other targets register.
    init(_ kind: any StoreKind, type: String, configuration: String?, url: URL?, options: [AnyHashable: Any]?, model: NSManagedObjectModel,
         knownSource: NSManagedObjectModel? = nil, coordinator: NSPersistentStoreCoordinator?, logger: Logger?) throws {
        self.storedType = type
        self.url = url
        self.options = options
        self.configurationName = configuration ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.persistentStoreCoordinator = coordinator
        self.readOnlyFlag = false
        let backend = try kind.open(StoreOpenRequest(type: type, url: url, model: model, configuration: NSManagedObjectModel.configurationName(configuration),
                                                     options: options, logger: logger, knownSource: knownSource))
        self.attachedBackend = backend
        super.init()
        var metadata = (backend as? MetadataStore)?.metadata ?? [:]
        metadata[NSStoreUUIDKey] = backend.identifier
        metadata[NSStoreTypeKey] = type
        storedMetadata = metadata
    }

    /// Mirrors `init(persistentStoreCoordinator:configurationName:at:options:)`, the designated initializer
    /// of custom stores: nothing is read yet (the coordinator calls ``loadMetadata()`` next). It is
    /// `required` so that the coordinator can make a registered class by its type, which Swift allows
    /// only through a required initializer: a subclass that writes this initializer says
    /// `required init(…)` where Objective-C-era code says `override init(…)` (docs/Store.md).
    public required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                         at url: URL, options: [AnyHashable: Any]? = nil) {
        self.storedType = NSPersistentStoreCoordinator.registeredType(of: Self.self) ?? String(describing: Self.self)
        self.url = url
        self.options = options
        self.configurationName = name ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.persistentStoreCoordinator = root
        self.readOnlyFlag = StoreOptionValue.flag(options?[NSReadOnlyPersistentStoreOption])
        super.init()
    }

    /// Mirrors `init(persistentStoreCoordinator:configurationName:URL:options:)`, the older spelling.
    public convenience init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                            URL url: URL, options: [AnyHashable: Any]?) {
        self.init(persistentStoreCoordinator: root, configurationName: name, at: url, options: options)
    }

    /// Mirrors `isReadOnly` (from `NSReadOnlyPersistentStoreOption`). Setting it true makes later saves
    /// throw before anything is written; a SQLite store opened read-only stays read-only.
    open var isReadOnly: Bool {
        get { readOnlyFlag || (attachedBackend?.isReadOnly ?? false) }
        set { readOnlyFlag = newValue }
    }

    /// Mirrors `identifier`: the store's UUID (`NSStoreUUIDKey` of its metadata).
    open var identifier: String! {
        get { storedIdentifier ?? (metadata?[NSStoreUUIDKey] as? String) ?? attachedBackend?.identifier }
        set { storedIdentifier = newValue }
    }

    /// Mirrors `metadata`: the store's metadata (`NSStoreTypeKey`, `NSStoreUUIDKey`, …). A custom store
    /// sets it in ``loadMetadata()``. Set on a SQLite store, the dictionary is written by the store's next
    /// save, as Core Data writes it ("Setting the metadata for a store does not change the information on
    /// disk until the store is actually saved"); Core Data's own keys (the model's hashes, …) are kept
    /// where the dictionary lacks them, and the store keeps its UUID (docs/StoreFormat.md).
    open var metadata: [String: Any]! {
        get { storedMetadata }
        set {
            storedMetadata = newValue
            (attachedBackend as? MetadataStore)?.setPendingMetadata(newValue ?? [:])
        }
    }

    /// Mirrors `loadMetadata()`: a custom store reads its metadata here (and must set ``metadata``, with
    /// `NSStoreTypeKey` and `NSStoreUUIDKey`); the coordinator calls it when the store is added. The
    /// built-in stores have read theirs when they opened.
    open func loadMetadata() throws {}

    /// Keeps the metadata's ``NSPersistentStoreDeferredLightweightMigrationOptionKey`` as the file now has it.
    func noteDeferredMigration(pending: Bool) {
        storedMetadata?[NSPersistentStoreDeferredLightweightMigrationOptionKey] = pending ? true : nil
    }

    /// Mirrors `didAdd(to:)`: called once the coordinator holds the store.
    open func didAdd(to coordinator: NSPersistentStoreCoordinator) {}

    /// Mirrors `willRemove(from:)`: called before the coordinator lets the store go.
    open func willRemove(from coordinator: NSPersistentStoreCoordinator?) {}

    /// Mirrors `metadataForPersistentStore(with:)`: a store type's metadata without adding the store. The
    /// base class reads a SQLite store's; custom store classes override it.
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try StoreRegistry.defaultKind.metadata(at: url)
    }

    /// Mirrors `setMetadata(_:forPersistentStoreAt:)`: the base class writes a SQLite store file's
    /// metadata in one transaction (Core Data's own keys kept where the dictionary lacks them; a file that
    /// is not a Core Data store is refused, untouched); custom store classes override it.
    open class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        try StoreRegistry.defaultKind.setMetadata(metadata ?? [:], at: url)
    }

    /// Mirrors `migrationManagerClass()`: the class of migration manager for stores of this type,
    /// ``NSMigrationManager`` (a store class may name a subclass). The SQLite store's lightweight migration
    /// runs in place when it is added (docs/Migration.md) and asks for no manager.
    open class func migrationManagerClass() -> AnyClass { NSMigrationManager.self }

    /// The stores added to coordinators, by identifier, for ``NSManagedObjectID/persistentStore``.
    static let addedStores = LockedValue<[String: WeakStore]>([:])

    /// Attaches what the coordinator reads and writes through (custom stores, once loaded).
    func attach(_ backend: any StoreBackend) { attachedBackend = backend }
}

/// Mirrors Core Data's `NSPersistentStoreDescription`: how to add a store.
open class NSPersistentStoreDescription: NSObject, @unchecked Sendable {
    /// Mirrors `url`.
    public var url: URL?
    /// Mirrors `type` (`NSSQLiteStoreType` by default).
    public var type: String = NSSQLiteStoreType
    /// Mirrors `configuration`.
    public var configuration: String?
    /// Mirrors `options`.
    public private(set) var options: [String: NSObject] = [:]
    /// Mirrors `shouldAddStoreAsynchronously`. Kept and copied, with no effect: a store is always added
    /// before `addPersistentStore(with:completionHandler:)` returns (docs/APICoverage.md).
    public var shouldAddStoreAsynchronously = false
    /// Mirrors `isReadOnly`: as in Core Data, a convenience for `NSReadOnlyPersistentStoreOption` in `options`.
    public var isReadOnly: Bool {
        get { StoreOptionValue.flag(options[NSReadOnlyPersistentStoreOption]) }
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

    /// Mirrors `init()`: as Core Data's, a new description's `options` turn on automatic, inferred
    /// migration (`NSMigratePersistentStoresAutomaticallyOption` and `NSInferMappingModelAutomaticallyOption`
    /// true), so a container migrates a store made with an earlier model version (docs/Migration.md).
    public override init() {
        super.init()
        options[NSMigratePersistentStoresAutomaticallyOption] = NSNumber(value: true)
        options[NSInferMappingModelAutomaticallyOption] = NSNumber(value: true)
    }

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

/// A store held without keeping it alive.
struct WeakStore {
    weak var store: NSPersistentStore?
    init(_ store: NSPersistentStore) { self.store = store }
}

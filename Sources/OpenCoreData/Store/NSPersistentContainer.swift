import Foundation

/// Mirrors Core Data's `NSPersistentContainer`: a model, a coordinator, store descriptions and the
/// view context, set up together.
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    /// Mirrors `name`.
    public let name: String
    /// Mirrors `managedObjectModel`.
    public let managedObjectModel: NSManagedObjectModel
    /// Mirrors `persistentStoreCoordinator`.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// Mirrors `persistentStoreDescriptions`: one SQLite store at `defaultDirectoryURL()/NAME.sqlite` by default.
    public var persistentStoreDescriptions: [NSPersistentStoreDescription]
    private var _viewContext: NSManagedObjectContext?
    /// Why `init(name:)` found no model (or could not read it), or why the model is invalid: reported by
    /// `loadPersistentStores`.
    private var modelLoadingError: (any Error)?

    /// Mirrors `init(name:managedObjectModel:)`. An invalid model (names, reserved columns, clashing
    /// tables) does not trap here: `loadPersistentStores` reports it to its completion handler, an
    /// `NSError` naming the entity and what is wrong. `required`, so that a subclass or an extension
    /// reaches it through a metatype (`Self(name:managedObjectModel:)`), as Objective-C lets Core Data's.
    public required init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        do {
            self.persistentStoreCoordinator = try NSPersistentStoreCoordinator(validatingModel: model)
        } catch {
            self.persistentStoreCoordinator = NSPersistentStoreCoordinator(unvalidatedModel: model)
            modelLoadingError = error
        }
        let description = NSPersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
        self.persistentStoreDescriptions = [description]
        super.init()
    }

    /// Mirrors `init(name:)`: the model `name.xcdatamodeld` (or `name.xcdatamodel`) from the main bundle
    /// or, failing that, from the SwiftPM resource bundles beside the executable (declare it with
    /// `resources: [.copy("Zoo.xcdatamodeld")]`; see docs/ModelFiles.md). Core Data looks for a compiled
    /// `name.momd`; we read the folder Xcode saves.
    ///
    /// Where Core Data only logs that the model was not found (and fails later), `loadPersistentStores`
    /// reports it here: an error saying where it looked and how to declare the resource in Package.swift,
    /// or the ``ModelFileError`` of a model that does not read.
    public convenience init(name: String) {
        do {
            self.init(name: name, managedObjectModel: try ModelBundleLookup.model(named: name))
        } catch {
            self.init(name: name, managedObjectModel: NSManagedObjectModel())
            modelLoadingError = error
        }
    }

    /// Mirrors `defaultDirectoryURL()`: `$XDG_DATA_HOME` (or `~/.local/share`) on Linux, Application
    /// Support on Darwin.
    open class func defaultDirectoryURL() -> URL {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory())
    }

    /// Mirrors `loadPersistentStores(completionHandler:)`: adds each described store, calling the handler
    /// once per store (before this returns).
    open func loadPersistentStores(completionHandler block: (NSPersistentStoreDescription, (any Error)?) -> Void) {
        if let modelLoadingError {
            for description in persistentStoreDescriptions { block(description, modelLoadingError) }
            return
        }
        let defaultURL = Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
        for description in persistentStoreDescriptions {
            if description.type == NSSQLiteStoreType, description.url == defaultURL,
               let url = Self.environmentStoreURL(name: name, ProcessInfo.processInfo.environment) {
                description.url = url
            }
            persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: block)
        }
    }

    /// The store URL the environment gives a description left at the container's default location
    /// (`OPENCOREDATA_STORE_URL`, an OpenCoreData addition), so that a deployment picks SQLite or
    /// PostgreSQL without a code change: a file path or `file:` URL, or a `postgres://` URL — which, when
    /// it names no `schema`, gets the container's name (lowercased, other characters than letters and
    /// digits as `_`) as its schema, so that containers of different names keep apart. `nil` when unset.
    static func environmentStoreURL(name: String, _ environment: [String: String]) -> URL? {
        guard let text = environment["OPENCOREDATA_STORE_URL"], !text.isEmpty else { return nil }
        guard let url = URL(string: text), url.scheme != nil else { return URL(fileURLWithPath: text) }
        guard PostgresStoreKind.isPostgres(url), var parts = URLComponents(url: url, resolvingAgainstBaseURL: false),
              !(parts.queryItems ?? []).contains(where: { $0.name == "schema" }) else { return url }
        let schema = String(name.lowercased().unicodeScalars.map { $0.isASCII && CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" })
        parts.queryItems = (parts.queryItems ?? []) + [URLQueryItem(name: "schema", value: schema.first?.isNumber == false ? schema : "c_" + schema)]
        return parts.url ?? url
    }

    /// Mirrors `viewContext`: the main-queue context, made on first use.
    open var viewContext: NSManagedObjectContext {
        if let context = _viewContext { return context }
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        context.name = "viewContext"
        _viewContext = context
        return context
    }

    /// Mirrors `performBackgroundTask(_:)`: runs `block` on a new private-queue context. `@preconcurrency`,
    /// as Core Data's Objective-C block is imported (see ``NSManagedObjectContext/perform(_:)``).
    @preconcurrency
    open func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Mirrors the async `performBackgroundTask(_:)`: runs `block` on a new private-queue context and
    /// returns its value. As Apple's, neither the block nor its value need be `Sendable` (they belong to
    /// the context's queue), and a block that does not throw makes a call that does not throw (typed throws
    /// stand for Apple's `rethrows`).
    open func performBackgroundTask<T, E: Error>(_ block: @escaping (NSManagedObjectContext) throws(E) -> T) async throws(E) -> T {
        let context = newBackgroundContext()
        return try await context.perform { () throws(E) -> T in try block(context) }
    }

    /// Mirrors `newBackgroundContext()`.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }
}

import Foundation

extension NSPersistentStore {
    /// Mirrors `NSPersistentStore.StoreType`: a store type for the coordinator's `type:` methods, beside
    /// the older string constants (`NSSQLiteStoreType`, …) that Apple now marks deprecated. The binary and
    /// XML stores are property-list files of this project (docs/Store.md), added and destroyed by their
    /// types as the others.
    public struct StoreType: Hashable, Sendable, RawRepresentable {
        /// The type's string, as the older constants spell it.
        public let rawValue: String
        /// Mirrors `init(rawValue:)`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Mirrors `NSPersistentStore.StoreType.sqlite`.
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        /// Mirrors `NSPersistentStore.StoreType.inMemory`.
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
    }
}

extension NSPersistentStoreCoordinator {
    /// Mirrors `addPersistentStore(type:configuration:at:options:)`.
    @discardableResult
    public func addPersistentStore(type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL,
                                   options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration,
                               at: type == .inMemory ? nil : storeURL, options: options)
    }

    /// Mirrors `persistentStore(for:)`: the store added at `url`, if any.
    public func persistentStore(for url: URL) -> NSPersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// Mirrors `url(for:)`.
    public func url(for store: NSPersistentStore) -> URL {
        store.url ?? URL(fileURLWithPath: "/dev/null")
    }

    /// Mirrors `destroyPersistentStore(at:type:options:)`: removes the store at `url` from this coordinator
    /// if it was added, then deletes the SQLite file, its `-wal` and `-shm` files and the folder of its
    /// externally stored values (a binary or XML store: its file). A file that does not exist is not an error (as in Core Data); a file that
    /// exists but is not a SQLite database throws `NSPersistentStoreInvalidTypeError` and is left as it is.
    public func destroyPersistentStore(at url: URL, type: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyPersistentStore(at: url, ofType: type.rawValue, options: options)
    }

    /// Mirrors `destroyPersistentStore(at:ofType:options:)` (the older spelling of
    /// ``destroyPersistentStore(at:type:options:)``). A file that is not a SQLite database is refused and
    /// kept, unless `options` has ``NSPersistentStoreForceDestroyOption`` set to true.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        switch StoreRegistry.entry(for: try StoreRegistry.type(storeType, at: url)) {
        case .kind(let kind):
            guard kind.needsURL else { return }
            if let store = persistentStore(for: url) { try remove(store) }
            try kind.destroy(at: url, options: options)
        case .storeClass(let propertyList as PropertyListStore.Type):
            try destroyPropertyListStore(at: url, kind: propertyList.kind, options: options)
        case .storeClass, nil:
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "Unknown store type \(storeType)")
        }
    }

    /// ``destroyPersistentStore(at:ofType:options:)`` of a binary or XML store: removes the store from this
    /// coordinator if it was added and deletes its file; a file that is not a store of that type throws
    /// `NSPersistentStoreInvalidTypeError` and is kept, unless `NSPersistentStoreForceDestroyOption` is set.
    private func destroyPropertyListStore(at url: URL, kind: PropertyListStoreFile.Kind, options: [AnyHashable: Any]?) throws {
        if let store = persistentStore(for: url) { try remove(store) }
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        if !StoreOptionValue.flag(options?[NSPersistentStoreForceDestroyOption]) { _ = try PropertyListStoreFile.read(at: url, kind) }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw CoreDataError(NSPersistentStoreOperationError, "Could not destroy the store at \(url.path): \(error.localizedDescription)",
                                userInfo: [NSUnderlyingErrorKey: error])
        }
    }

    /// Mirrors `managedObjectID(for:)`: the object ID a URI string names (``managedObjectID(forURIRepresentation:)``
    /// of the string's URL), `nil` if it names no object of this coordinator's store.
    public func managedObjectID(for uriString: String) -> NSManagedObjectID? {
        URL(string: uriString).flatMap(managedObjectID(forURIRepresentation:))
    }

    /// Mirrors `perform(_:)`: runs `block` asynchronously on the coordinator's queue. `@preconcurrency`,
    /// as Core Data's Objective-C block is imported (see ``NSManagedObjectContext/perform(_:)``).
    @preconcurrency
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async(execute: block)
    }

    /// Mirrors `performAndWait(_:)`: runs `block` on the coordinator's queue and waits for it (inline
    /// when called from that queue), returning its value and rethrowing its error.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try waitingOnQueue(block)
    }

    private func waitingOnQueue<T>(_ block: () throws -> T) rethrows -> T {
        if DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) { return try block() }
        return try queue.sync(execute: block)
    }

    /// Mirrors the non-generic `performAndWait(_:)` (Core Data declares it beside the generic one).
    public func performAndWait(_ block: () -> Void) {
        waitingOnQueue(block)
    }

    /// Mirrors the async `perform(_:)`: runs `block` on the coordinator's queue and returns its value. As
    /// Apple's, neither needs to be `Sendable`; typed throws stand for Apple's `rethrows`.
    public func perform<T, E: Error>(_ block: @escaping () throws(E) -> T) async throws(E) -> T {
        let job = QueueHandoff(block)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<QueueHandoff<Result<T, E>>, Never>) in
            queue.async { continuation.resume(returning: QueueHandoff(Result { () throws(E) -> T in try job.value() })) }
        }
        return try outcome.value.get()
    }

    static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
}

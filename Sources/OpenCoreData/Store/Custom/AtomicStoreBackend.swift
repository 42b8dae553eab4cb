import Foundation

/// What the coordinator reads and writes through for an ``NSAtomicStore``: an in-memory SQLite store
/// holding the cache nodes' records answers every fetch, count and relationship; a save writes it, then
/// hands the saved objects to the atomic store's cache-node methods and calls its `save()`, all undone if
/// any step throws.
final class AtomicStoreBackend: StoreBackend, @unchecked Sendable {
    private let memory: any ImageStore
    private weak var store: NSAtomicStore?
    private let lock = NSRecursiveLock()
    let identifier: String

    /// Makes the mirror, lets the store `load()`, and copies the nodes it registered into the mirror.
    init(_ store: NSAtomicStore, model: NSManagedObjectModel) throws {
        let mirror = try StoreRegistry.kind(for: NSInMemoryStoreType)?.open(
            StoreOpenRequest(type: NSInMemoryStoreType, url: nil, model: model, configuration: nil, options: nil, logger: nil))
        guard let mirror = mirror as? ImageStore else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "The in-memory store cannot mirror an atomic store")
        }
        memory = mirror
        self.store = store
        guard let id = store.identifier, !id.isEmpty else {
            throw CoreDataError(NSPersistentStoreOperationError, "\(type(of: store)).loadMetadata() did not set the store's metadata with NSStoreUUIDKey")
        }
        identifier = id
        store.mirror = self
        try store.load()
        try ingest(store.cacheNodes())
    }

    /// The mirror always writes; the store's own `isReadOnly` is checked when a save begins.
    var isReadOnly: Bool { false }
    var queryCount: Int { memory.queryCount }
    var needsSavedObjects: Bool { true }

    func fetchRows(_ plan: FetchPlan, withValues: Bool, limited: Bool, in scope: StoreReadScope) throws -> [StoreRow] {
        try memory.fetchRows(plan, withValues: withValues, limited: limited, in: scope)
    }
    func fetchKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> (pks: [Int64], entityRuns: [EntityRun]) {
        try memory.fetchKeys(plan, in: scope)
    }
    func loadRows(_ keys: [ObjectKey], in scope: StoreReadScope) throws -> [ObjectKey: StoreRow] { try memory.loadRows(keys, in: scope) }
    func loadRows(root: Int, pks: [Int64], in scope: StoreReadScope) throws -> [StoreRow?] {
        try memory.loadRows(root: root, pks: pks, in: scope)
    }
    func loadRelationship(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [Int64: [ObjectRef]] {
        try memory.loadRelationship(r, owners: owners, in: scope)
    }
    func loadRelationship(_ r: RelationshipLayout, owner: Int64, in scope: StoreReadScope) throws -> [ObjectRef] {
        try memory.loadRelationship(r, owner: owner, in: scope)
    }
    func prefetchToMany(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [(owner: Int, row: StoreRow)] {
        try memory.prefetchToMany(r, owners: owners, in: scope)
    }
    func count(_ plan: FetchPlan, in scope: StoreReadScope) throws -> Int { try memory.count(plan, in: scope) }
    func fetchColumns(_ plan: FetchPlan, _ columns: DictionaryColumns, in scope: StoreReadScope, row: ([Value]) throws -> Void) throws {
        try memory.fetchColumns(plan, columns, in: scope, row: row)
    }
    func allocateKeys(root: Int, count: Int) throws -> [Int64] { try memory.allocateKeys(root: root, count: count) }
    func generation() throws -> String { try memory.generation() }

    /// Permanent keys for inserted objects: each gets a reference object from the store
    /// (`newReferenceObject(for:)`) and the key that stands for it.
    func permanentKeys(for objects: [NSManagedObject], root: Int) throws -> [Int64] {
        guard let store else { throw Self.goneError }
        return try lock.withLock {
            let pks = try memory.allocateKeys(root: root, count: objects.count)
            for (object, pk) in zip(objects, pks) {
                store.references.record(root: root, pk: pk, ReferenceObjects.hashable(store.newReferenceObject(for: object)))
            }
            return pks
        }
    }

    func save(_ changes: StoreChanges, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution]) throws -> StoreSaveOutcome {
        guard let store else { throw Self.goneError }
        guard !store.isReadOnly else {
            throw CoreDataError(NSPersistentStoreSaveError, "cannot save: the store at \(store.url?.path ?? "?") is read-only; nothing was written")
        }
        return try lock.withLock {
            let image = try memory.image()
            let cache = store.cacheState()
            do {
                let outcome = try saveMirror(changes, resolve: resolve)
                try changes.beforeCommit?()
                store.apply(inserted: changes.insertedObjects, updated: changes.updatedObjects, deleted: changes.deletes.map(\.key))
                try store.save()
                return outcome
            } catch {
                try? memory.restore(image: image)
                store.restore(cache)
                throw error
            }
        }
    }

    /// Writes a changeset into the mirror.
    func saveMirror(_ changes: StoreChanges,
                    resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution] = { _ in [:] }) throws -> StoreSaveOutcome {
        try memory.save(changes, resolve: resolve)
    }

    private static var goneError: CoreDataError {
        CoreDataError(NSPersistentStoreOperationError, "The atomic store was released while the coordinator still used it.")
    }
}

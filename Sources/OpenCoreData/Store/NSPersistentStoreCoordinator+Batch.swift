import Foundation

/// Batch requests reach the store through the coordinator, which owns the row cache: it finds the store
/// (one that runs batch requests) that holds the request's entity, lets the request write, and forgets the rows written.
extension NSPersistentStoreCoordinator {
    /// Runs `write` on each store holding `entity` that the request reaches (with `firstOnly`, the first
    /// of them: where a batch insert goes, as an object's insert does), then forgets from the row cache the
    /// rows `write` says it changed; returns each store's result and identifier. Each store's write is its
    /// own transaction: a request over several stores that fails in one keeps what the stores before it
    /// wrote (docs/Store.md, "Overlapping configurations").
    func writeBatch<T>(for entity: NSEntityDescription, _ request: NSPersistentStoreRequest, firstOnly: Bool = false,
                       _ write: (any BatchRequestStore, NSPersistentStore) throws -> (result: T, changed: [BatchRow]))
        throws -> [(result: T, storeIdentifier: String)] {
        let root = entity.layout!.rootEntityID
        let holders = storesHolding(root)
        var reached = holders.filter { request.reaches($0) }
        guard !reached.isEmpty else {
            if holders.isEmpty { _ = try self.store(root: root) }  // the error names what is missing
            throw CoreDataError(NSPersistentStoreOperationError, "The batch request's affectedStores do not include the store that holds \(entity.name ?? "?").")
        }
        if firstOnly { reached = [reached[0]] }
        let batchStores = try reached.map { store -> (NSPersistentStore, any BatchRequestStore) in
            guard let batchStore = store.backend as? BatchRequestStore else {
                throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError,
                                    "Batch requests run on stores that execute them (SQLite); \(entity.name ?? "?") is in a store of type \(store.type).")
            }
            return (store, batchStore)
        }
        return try batchStores.map { store, batchStore in
            let (result, changed) = try write(batchStore, store)
            rowCache.remove(changed.map { Self.tagged($0.key, store.keyTag) })
            return (result, batchStore.identifier)
        }
    }

    /// The IDs of rows a batch request wrote, in the store of `storeIdentifier`.
    func objectIDs(_ rows: [BatchRow], storeIdentifier: String) -> [NSManagedObjectID] {
        let tag = persistentStores.first { $0.identifier == storeIdentifier }?.keyTag ?? 0
        return rows.compactMap { row in
            managedObjectModel.entity(number: row.entityID).map { NSManagedObjectID(entity: $0, key: Self.tagged(row.key, tag), storeIdentifier: storeIdentifier) }
        }
    }
}

import Foundation

/// Batch requests reach the store through the coordinator, which owns the row cache: it finds the store
/// (one that runs batch requests) that holds the request's entity, lets the request write, and forgets the rows written.
extension NSPersistentStoreCoordinator {
    /// Runs `write` on the store holding `entity` (one the request may reach), then forgets from
    /// the row cache the rows `write` says it changed; returns its result and the store's identifier.
    func writeBatch<T>(for entity: NSEntityDescription, _ request: NSPersistentStoreRequest,
                       _ write: (any BatchRequestStore) throws -> (result: T, changed: [BatchRow])) throws -> (result: T, storeIdentifier: String) {
        let root = entity.layout!.rootEntityID
        let holders = storesHolding(root)
        let reached = holders.filter { request.reaches($0) }
        guard let store = reached.first else {
            if holders.isEmpty { _ = try self.store(root: root) }  // the error names what is missing
            throw CoreDataError(NSPersistentStoreOperationError, "The batch request's affectedStores do not include the store that holds \(entity.name ?? "?").")
        }
        guard reached.count == 1 else {
            throw CoreDataError(NSPersistentStoreOperationError, "\(reached.count) stores hold \(entity.name ?? "?"): a batch request runs on one store here; set its affectedStores to one of them (docs/Store.md, \"Overlapping configurations\").")
        }
        guard let batchStore = store.backend as? BatchRequestStore else {
            throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError,
                                "Batch requests run on stores that execute them (SQLite); \(entity.name ?? "?") is in a store of type \(store.type).")
        }
        let (result, changed) = try write(batchStore)
        rowCache.remove(changed.map { Self.tagged($0.key, store.keyTag) })
        return (result, batchStore.identifier)
    }

    /// The IDs of rows a batch request wrote, in the store of `storeIdentifier`.
    func objectIDs(_ rows: [BatchRow], storeIdentifier: String) -> [NSManagedObjectID] {
        let tag = persistentStores.first { $0.identifier == storeIdentifier }?.keyTag ?? 0
        return rows.compactMap { row in
            managedObjectModel.entity(number: row.entityID).map { NSManagedObjectID(entity: $0, key: Self.tagged(row.key, tag), storeIdentifier: storeIdentifier) }
        }
    }
}

import Foundation
import OpenCoreData

extension DataStoreBridge {
    /// Answers Core Data's fetches (object IDs, counts) from the data store, and its saves.
    func answer(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        withState { $0.recent = [:] }
        switch request {
        case let save as NSSaveChangesRequest: return try self.save(save, context)
        case let fetch as NSFetchRequest<NSFetchRequestResult>: return try self.fetch(fetch, context)
        default:
            throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError, "a custom data store answers fetches and saves, not \(Swift.type(of: request))")
        }
    }

    private func fetch(_ request: NSFetchRequest<NSFetchRequestResult>, _ context: NSManagedObjectContext?) throws -> Any {
        let fetch = try bridgedFetch(for: request)
        let editing = editingState(context)
        if request.resultType == .countResultType { return [NSNumber(value: try fetch.count(dataStore, request, editing))] }
        if fetch.identifiersOnly { return try fetch.identifiers(dataStore, request, editing).map(destinationObjectID) }
        let (fetched, related) = try fetch.snapshots(dataStore, request, editing)
        let snapshots = try fetched.map(defaultSnapshot)
        let relatedSnapshots = try related.values.map(defaultSnapshot)
        withState { state in
            for snapshot in relatedSnapshots + snapshots { state.recent[snapshot.persistentIdentifier] = snapshot }
        }
        return try snapshots.map { try destinationObjectID($0.persistentIdentifier) }
    }

    /// The context's descriptor for this request, or, for a fetch of Core Data's own without predicate or
    /// sort (all objects of an entity), a descriptor of all of them.
    private func bridgedFetch(for request: NSFetchRequest<NSFetchRequestResult>) throws -> any BridgedFetch {
        let name = request.entityName ?? request.entity?.name ?? ""
        if let fetch = BridgedFetchScope.current, fetch.entityName == name { return fetch }
        guard request.predicate == nil, request.sortDescriptors?.isEmpty ?? true, let type = schema.modelType(named: name) else {
            throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError,
                                "a custom data store answers fetches made with a FetchDescriptor through ModelContext; this fetch of \(name) has an NSPredicate or sort of its own")
        }
        func all<T: PersistentModel>(_: T.Type) -> any BridgedFetch { DescriptorFetch(descriptor: FetchDescriptor<T>()) }
        return all(type)
    }

    private func destinationObjectID(_ identifier: PersistentIdentifier) throws -> NSManagedObjectID {
        guard let id = objectID(for: identifier) else {
            throw CoreDataError(NSPersistentStoreOperationError, "the data store \(dataStore.identifier) answered with \(identifier.entityName), which the container's schema does not have")
        }
        return id
    }

    // MARK: Saving

    /// An inserted object's ID: its reference object is a temporary identifier, mapped to the permanent one
    /// when the data store has saved it.
    func temporaryIDs(for array: [NSManagedObject]) -> [NSManagedObjectID] {
        array.map { object in newObjectID(for: object.entity, referenceObject: PersistentIdentifier(temporary: object.entity.name ?? "")) }
    }

    private func save(_ request: NSSaveChangesRequest, _ context: NSManagedObjectContext?) throws -> Any {
        let snapshot = { (object: NSManagedObject) in DefaultSnapshot(object, identifier: PersistentIdentifier.init) }
        let inserted = (request.insertedObjects ?? []).map(snapshot)
        let updated = (request.updatedObjects ?? []).map(snapshot)
        let deleted = (request.deletedObjects ?? []).map(snapshot)
        let result = try dataStore.save(DataStoreSaveChangesRequest(
            editingState: editingState(context), inserted: try inserted.map(storeSnapshot),
            updated: try updated.map(storeSnapshot), deleted: try deleted.map(storeSnapshot)))
        let reregistered = try result.snapshotsToReregister.mapValues(defaultSnapshot)
        withState { state in
            state.recent = [:]  // read while the snapshots were made (relationship faults): from before the save
            for (temporary, permanent) in result.remappedIdentifiers {
                state.permanent[temporary] = permanent
                state.reference[permanent] = temporary
            }
            for snapshot in deleted { state.versions[snapshot.persistentIdentifier] = nil }
            for snapshot in reregistered.values { state.versions[snapshot.persistentIdentifier] = nil }
        }
        record(inserted.map { $0.copy(persistentIdentifier: result.remappedIdentifiers[$0.persistentIdentifier] ?? $0.persistentIdentifier,
                                      remappedIdentifiers: result.remappedIdentifiers) }, version: { _ in 1 })
        record(updated.map { $0.copy(persistentIdentifier: $0.persistentIdentifier, remappedIdentifiers: result.remappedIdentifiers) },
               version: { ($0 ?? 0) + 1 })
        let reregisteredIDs = try reregistered.keys.map(destinationObjectID)
        withState { $0.reregistered += reregisteredIDs }
        return [Any]()
    }

    /// Records the values an object was just saved with and its new version.
    private func record(_ snapshots: [DefaultSnapshot], version: (UInt64?) -> UInt64) {
        withState { state in
            for snapshot in snapshots {
                let id = snapshot.persistentIdentifier
                state.versions[id] = (snapshot.hashValue, version(state.versions[id]?.version))
            }
        }
    }
}

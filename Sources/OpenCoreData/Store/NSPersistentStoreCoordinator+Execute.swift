import Foundation

/// Fetch requests with their result type erased, for the coordinator's `execute(_:with:)`.
protocol ErasedFetchRequest: AnyObject {
    func results(in context: NSManagedObjectContext) throws -> [Any]
    var resultType: NSFetchRequestResultType { get }
}

extension NSFetchRequest: ErasedFetchRequest {
    func results(in context: NSManagedObjectContext) throws -> [Any] { try context.fetch(self).map { $0 as Any } }
}

extension NSPersistentStoreCoordinator {
    /// Mirrors `execute(_:with:)`: runs a request against the coordinator's store for `context`. An
    /// `NSFetchRequest` returns its results array (managed objects registered in `context`, object IDs,
    /// dictionaries, or one `NSNumber` for a count), as `context.fetch(_:)` returns them: unlike Core
    /// Data's coordinator, which reads the stores only, the context's unsaved changes are included when the
    /// request's `includesPendingChanges` says so. Other requests throw
    /// `NSPersistentStoreUnsupportedRequestTypeError` naming their type: an `NSSaveChangesRequest` (Core
    /// Data writes its objects; here a context saves with `save()`, which hands an incremental store its
    /// own save request) and an `NSAsynchronousFetchRequest` (run it with the context's `execute(_:)`). Batch
    /// requests (``NSBatchInsertRequest``, ``NSBatchUpdateRequest``, ``NSBatchDeleteRequest``) run on the
    /// SQLite store and return their result object, as the context's `execute(_:)` does.
    public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        if let batch = request as? BatchRequest { return try batch.run(on: self, origin: context.historyOrigin) }
        if let fetch = request as? ErasedFetchRequest {
            guard context.persistentStoreCoordinator === self else {
                throw CoreDataError(NSPersistentStoreOperationError, "execute(_:with:): the context is not one of this coordinator's")
            }
            return try fetch.results(in: context)
        }
        throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError,
                            "the coordinator's execute(_:with:) does not run requests of type \(request.requestType) (\(type(of: request)))"
                            + (request.requestType == .saveRequestType ? ": a context saves with save()" : ""))
    }
}

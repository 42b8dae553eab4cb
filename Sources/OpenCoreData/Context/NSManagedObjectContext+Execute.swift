import Foundation

/// The requests `execute(_:)` runs, their result type erased.
protocol ExecutableRequest: AnyObject {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult
}

/// The context whose `perform` / `performAndWait` block is running on this thread (for
/// `NSFetchRequest.execute()`).
enum PerformingContext {
    @TaskLocal static var current: NSManagedObjectContext?
}

extension NSManagedObjectContext {
    /// Mirrors `execute(_:)`: runs a request that is not a plain fetch or save.
    ///
    /// - An `NSAsynchronousFetchRequest` returns its `NSAsynchronousFetchResult` at once and runs in the
    ///   background (see ``NSAsynchronousFetchRequest``).
    /// - An `NSFetchRequest` runs at once, as `fetch(_:)`, and returns an `NSAsynchronousFetchResult`
    ///   whose `finalResult` holds the results.
    /// - An `NSSaveChangesRequest` is what `save()` hands a store; executing one throws
    ///   `NSPersistentStoreUnsupportedRequestTypeError` (call `save()`).
    /// - ``NSBatchInsertRequest``, ``NSBatchUpdateRequest`` and ``NSBatchDeleteRequest`` write the SQLite
    ///   store directly, bypassing every context, and return their result object.
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        checkQueue("execute(_:)")
        if let executable = request as? ExecutableRequest { return try executable.execute(in: self) }
        let message = request.requestType == .saveRequestType
            ? "execute(_:) does not run an NSSaveChangesRequest: a context saves with save()"
            : "execute(_:) does not run requests of type \(request.requestType) (\(type(of: request))) yet"
        throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError, message)
    }
}

extension NSFetchRequest: ExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let results = try context.fetch(self)
        let progress = Progress(totalUnitCount: Int64(results.count))
        progress.completedUnitCount = Int64(results.count)
        let result = NSAsynchronousFetchResult(NSAsynchronousFetchRequest(fetchRequest: self, completionBlock: nil), context: context, progress: progress)
        result.finish(with: results)
        return result
    }

    /// Mirrors `execute()`: fetches in the context whose `perform` or `performAndWait` block is running
    /// on the calling thread, as `context.fetch(self)`. Core Data raises when no context's block is
    /// running; this throws `NSCoreDataError` instead (a main-queue context's code that runs on the main
    /// thread outside `perform` is not "its block": use `fetch(_:)` there).
    public func execute() throws -> [ResultType] {
        guard let context = PerformingContext.current else {
            throw CoreDataError(NSCoreDataError, "NSFetchRequest.execute() fetches in the context whose perform or performAndWait block is running, and none is: call it inside one, or call the context's fetch(_:)")
        }
        return try context.fetch(self)
    }
}

extension NSAsynchronousFetchRequest: ExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let progress = Progress(totalUnitCount: Int64(max(estimatedResultCount, 0)))
        let result = NSAsynchronousFetchResult(self, context: context, progress: progress)
        AsynchronousFetch(result, context: context).start()
        return result
    }
}

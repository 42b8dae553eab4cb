import Foundation

/// Mirrors Core Data's `NSPersistentStoreAsynchronousFetchResultCompletionBlock`: the block an
/// `NSAsynchronousFetchRequest` calls when it ends.
public typealias NSPersistentStoreAsynchronousFetchResultCompletionBlock = (NSAsynchronousFetchResult<any NSFetchRequestResult>) -> Void

/// Mirrors Core Data's `NSAsynchronousFetchRequest<ResultType>`: a fetch that `execute(_:)` starts and
/// returns from at once. The store is read off the context's queue (on one of the store's reader
/// connections, or the connection of the context's query generation); the objects are then made in the
/// context on its queue, and `completionBlock` is called there with the result. See
/// ``NSManagedObjectContext/execute(_:)``.
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    /// Mirrors `fetchRequest`: the fetch run in the background.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Mirrors `completionBlock`: called on the context's queue when the fetch ends (also when it failed
    /// or was cancelled: `finalResult` is then `nil`).
    public var completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// Mirrors `estimatedResultCount`: how many results to expect; when above 0 it is the result's
    /// `progress.totalUnitCount` until the store has answered (then the real count is).
    public var estimatedResultCount: Int = 0

    /// Mirrors `init(fetchRequest:completionBlock:)`.
    public init(fetchRequest request: NSFetchRequest<ResultType>, completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)?) {
        self.fetchRequest = request
        self.completionBlock = blk
        super.init()
    }

    /// Mirrors `requestType`: `.fetchRequestType` (Core Data's private asynchronous type has no public case).
    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Mirrors `affectedStores`: the fetch request's.
    open override var affectedStores: [NSPersistentStore]? {
        get { fetchRequest.affectedStores }
        set { fetchRequest.affectedStores = newValue }
    }
}

/// Mirrors Core Data's `NSAsynchronousFetchResult<ResultType>`: what `execute(_:)` returns for an
/// `NSAsynchronousFetchRequest` at once, and what its completion block receives at the end.
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult, @unchecked Sendable {
    private let lock = NSLock()
    private var results: [ResultType]?

    /// Mirrors `fetchRequest`: the asynchronous request this is the result of.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>

    /// Mirrors `finalResult`: the fetched results once the fetch has ended; `nil` before, and when it
    /// failed (`operationError`) or was cancelled.
    open var finalResult: [ResultType]? { lock.withLock { results } }

    init(_ request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, progress: Progress) {
        self.fetchRequest = request
        super.init(context: context, progress: progress)
    }

    func finish(with results: [ResultType]) { lock.withLock { self.results = results } }
}

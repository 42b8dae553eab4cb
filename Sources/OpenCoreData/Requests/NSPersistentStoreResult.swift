import Foundation
import Synchronization

/// Mirrors Core Data's `NSPersistentStoreResult`: the base class of what
/// `NSManagedObjectContext.execute(_:)` returns.
open class NSPersistentStoreResult: NSObject, @unchecked Sendable {
    /// Mirrors `init()`.
    public override init() { super.init() }
}

/// Mirrors Core Data's `NSPersistentStoreAsynchronousResult`: the result of a request that runs in the
/// background (`NSAsynchronousFetchResult`), returned at once by `execute(_:)` while the work goes on.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult, @unchecked Sendable {
    private struct State {
        var error: (any Error)?
        var isCancelled = false
    }

    private let state = Mutex(State())
    private let context: NSManagedObjectContext

    /// Mirrors `managedObjectContext`: the context that executed the request.
    open var managedObjectContext: NSManagedObjectContext { context }

    /// Mirrors `operationError`: the error the operation ended with (the store's, or
    /// `NSUserCancelledError` once cancelled); `nil` while it runs and when it succeeded.
    open var operationError: (any Error)? { state.withLock { $0.error } }

    /// Mirrors `progress`: the operation's progress. Cancelling it cancels the operation, as `cancel()` does.
    public let progress: Progress?

    init(context: NSManagedObjectContext, progress: Progress?) {
        self.context = context
        self.progress = progress
        super.init()
        progress?.cancellationHandler = { [weak self] in self?.markCancelled() }
    }

    /// Mirrors `cancel()`: stops the operation if it has not finished (its completion block then receives
    /// a result without `finalResult`). Cancelling a finished operation does nothing.
    open func cancel() {
        markCancelled()
        if let progress, !progress.isCancelled { progress.cancel() }
    }

    /// Whether `cancel()` (or the progress's `cancel()`) was called.
    var isCancelled: Bool { state.withLock { $0.isCancelled } || progress?.isCancelled == true }

    private func markCancelled() { state.withLock { $0.isCancelled = true } }

    /// Records the error the operation ended with.
    func fail(_ error: any Error) { state.withLock { $0.error = error } }
}

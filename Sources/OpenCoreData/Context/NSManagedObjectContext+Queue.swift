import Dispatch
import Foundation

private let contextQueueKey = DispatchSpecificKey<Set<ObjectIdentifier>>()

extension NSManagedObjectContext {
    /// Mirrors `NSManagedObjectContext.ScheduledTaskType`.
    public enum ScheduledTaskType: Sendable {
        /// Runs the block as soon as the queue allows (`perform`).
        case immediate
        /// Enqueues the block behind the queue's other work.
        case enqueued
    }

    /// Whether the calling code is running on this context's queue.
    var isOnQueue: Bool {
        DispatchQueue.getSpecific(key: contextQueueKey)?.contains(ObjectIdentifier(queue)) == true
    }

    /// The main queue, marked once and shared by every main-queue context (a global's initializer runs
    /// once, whichever thread gets there first): marking it again for each context replaced the value
    /// while another thread, creating another context, was reading it. (`DispatchQueue.main` makes a new
    /// wrapper object at each use on Linux: the mark names this one.)
    private static let markedMainQueue: DispatchQueue = {
        let main = DispatchQueue.main
        main.setSpecific(key: contextQueueKey, value: [ObjectIdentifier(main)])
        return main
    }()

    static func makeQueue(for type: NSManagedObjectContextConcurrencyType, name: String) -> DispatchQueue {
        if type == .mainQueueConcurrencyType { return markedMainQueue }
        let queue = DispatchQueue(label: name)
        queue.setSpecific(key: contextQueueKey, value: [ObjectIdentifier(queue)])
        return queue
    }

    /// Mirrors `perform(_:)`: runs `block` asynchronously on the context's queue.
    ///
    /// A main-queue context's blocks run when the program runs the main queue: `dispatchMain()`,
    /// `RunLoop.main.run()`, or an `async` `main` (Swift concurrency drains it). A command-line tool that
    /// only ever calls `performAndWait` from the main thread needs none of that.
    ///
    /// `@preconcurrency`, as Core Data's Objective-C block is imported: in Swift 6 mode, a block that
    /// captures what is not `Sendable` (the context's objects, a did-save notification) compiles, with
    /// a warning where Apple's gives one.
    @preconcurrency
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { self.runningOnQueue(block) }
    }

    /// Mirrors `performAndWait(_:)`: runs `block` on the context's queue and waits. Re-entrant (a block
    /// already on the queue runs inline), rethrowing, and returns the block's value.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try waitingOnQueue(block)
    }

    private func waitingOnQueue<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue || (concurrencyType == .mainQueueConcurrencyType && Thread.isMainThread) || concurrencyType == .confinementConcurrencyType {
            return try runningOnQueue(block)
        }
        return try withoutActuallyEscaping(block) { block in
            var result: Result<T, Error>!
            queue.sync { result = Result { try runningOnQueue(block) } }
            return try result.get()
        }
    }

    /// Mirrors the non-generic `performAndWait(_:)` (Core Data declares it beside the generic one).
    public func performAndWait(_ block: () -> Void) {
        waitingOnQueue(block)
    }

    /// Mirrors the async `perform(schedule:_:)`: runs `block` on the context's queue (inline when
    /// `.immediate` and already there) and returns its value. As Apple's, the block and its value need
    /// not be `Sendable` (they belong to the context's queue); a block that does not throw makes a call
    /// that does not throw (typed throws stand for Apple's `rethrows`).
    public func perform<T, E: Error>(schedule: ScheduledTaskType = .immediate, _ block: @escaping () throws(E) -> T) async throws(E) -> T {
        if schedule == .immediate, isOnQueue { return try runningOnQueue { Result { () throws(E) -> T in try block() } }.get() }
        let job = QueueHandoff(block)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<QueueHandoff<Result<T, E>>, Never>) in
            queue.async {
                continuation.resume(returning: QueueHandoff(self.runningOnQueue { Result { () throws(E) -> T in try job.value() } }))
            }
        }
        return try outcome.value.get()
    }
}

/// A value handed between a caller and a context's or coordinator's queue, which the queue alone uses in
/// between (Core Data's blocks and results are not `Sendable` either).
struct QueueHandoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

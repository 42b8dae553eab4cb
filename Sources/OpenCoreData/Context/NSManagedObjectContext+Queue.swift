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

    static func makeQueue(for type: NSManagedObjectContextConcurrencyType, name: String) -> DispatchQueue {
        let queue = type == .mainQueueConcurrencyType ? DispatchQueue.main : DispatchQueue(label: name)
        var marks = queue.getSpecific(key: contextQueueKey) ?? []
        marks.insert(ObjectIdentifier(queue))
        queue.setSpecific(key: contextQueueKey, value: marks)
        return queue
    }

    /// Mirrors `perform(_:)`: runs `block` asynchronously on the context's queue.
    ///
    /// A main-queue context's blocks run when the program runs the main queue: `dispatchMain()`,
    /// `RunLoop.main.run()`, or an `async` `main` (Swift concurrency drains it). A command-line tool that
    /// only ever calls `performAndWait` from the main thread needs none of that.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { self.runningOnQueue(block) }
    }

    /// Mirrors `performAndWait(_:)`: runs `block` on the context's queue and waits. Re-entrant (a block
    /// already on the queue runs inline), rethrowing, and returns the block's value.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue || (concurrencyType == .mainQueueConcurrencyType && Thread.isMainThread) || concurrencyType == .confinementConcurrencyType {
            return try runningOnQueue(block)
        }
        return try withoutActuallyEscaping(block) { block in
            var result: Result<T, Error>!
            queue.sync { result = Result { try runningOnQueue(block) } }
            return try result.get()
        }
    }

    /// Mirrors the async `perform(schedule:_:)`.
    public func perform<T: Sendable>(schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws -> T) async throws -> T {
        if schedule == .immediate, isOnQueue { return try runningOnQueue(block) }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.runningOnQueue(block) }) }
        }
    }

    /// Mirrors the async `perform(schedule:_:)` for blocks that do not throw.
    public func perform<T: Sendable>(schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () -> T) async -> T {
        if schedule == .immediate, isOnQueue { return runningOnQueue(block) }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.runningOnQueue(block)) }
        }
    }
}

import Foundation
import Synchronization

/// How a store's background reader (a batched fetch's keys, ``BatchKeys``; a controller's rows,
/// ``ProgressiveRows``) learns that nobody wants what it reads any more: it stops at its next row, or at
/// once inside a query that can be interrupted (one that sorts every row before its first).
package final class ReaderStop: Sendable {
    private let abandoned = Atomic<Bool>(false)
    /// While the reader runs a query, how to stop it at once.
    private let interruption = LockedValue<(@Sendable () -> Void)?>(nil)

    /// Whether the reader should stop.
    var isAbandoned: Bool { abandoned.load(ordering: .relaxed) }

    /// Nobody wants the reader's work any more.
    func abandon() {
        abandoned.store(true, ordering: .relaxed)
        interruption.withLock { $0?() }
    }

    /// Runs the reader's `body`, during which ``abandon()`` calls `interrupt` (the store stops the query it
    /// runs); never after `body` returns, so an interrupt cannot reach the connection's next query.
    func whileReading<T>(interrupt: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        interruption.withLock { $0 = interrupt }
        defer { interruption.withLock { $0 = nil } }
        if isAbandoned { interrupt() }
        return try body()
    }
}

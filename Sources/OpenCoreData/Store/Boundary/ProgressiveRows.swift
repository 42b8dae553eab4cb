import Foundation
import Synchronization

/// What a store hands a fetched results controller whose request has a `fetchBatchSize`
/// (``ProgressiveKeyStore/progressiveRows(_:groupedByFirstSort:in:)``): the number of matches (per run of
/// equal first sort values when the controller has sections) and the first batch's rows now; then every
/// match's key, entity and sort values, read by the store's reader in the same read transaction, so that
/// the first screen and the rest are the same results whatever is saved meanwhile.
package final class ProgressiveRows: @unchecked Sendable {
    /// One match: its key, entity number and the values of the plan's sort terms, in order.
    package struct Row {
        let pk: Int64
        let entityID: Int
        let values: [Value]
    }

    /// The number of matches of each first sort value, in the fetch's order (sections), or one group
    /// (value `.null`) of every match; no group when nothing matches.
    let groups: [(value: Value, count: Int)]
    /// The first `fetchBatchSize` matches, with their values.
    let first: [StoreRow]
    private let condition = NSCondition()
    private var result: Result<[Row], any Error>?
    private let abandoned = Atomic<Bool>(false)
    /// While the reader runs a query, how to stop it at once.
    private let interruption = LockedValue<(@Sendable () -> Void)?>(nil)

    init(groups: [(value: Value, count: Int)], first: [StoreRow]) {
        self.groups = groups
        self.first = first
    }

    /// Every match in the fetch's order (the first batch's included), waiting for the reader; the
    /// store's error if it failed.
    func wait() throws -> [Row] {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result!.get()
    }

    // MARK: - The reader's side

    /// Whether the reader should stop: nobody wants the rows any more.
    var isAbandoned: Bool { abandoned.load(ordering: .relaxed) }

    /// Nobody wants the rows any more: the reader stops at its next row, or at once inside a query that
    /// can be interrupted.
    func abandon() {
        abandoned.store(true, ordering: .relaxed)
        interruption.withLock { $0?() }
    }

    /// Runs the reader's `body`, during which abandoning the rows calls `interrupt`; never after `body`
    /// returns, so an interrupt cannot reach the connection's next query.
    func whileReading<T>(interrupt: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        interruption.withLock { $0 = interrupt }
        defer { interruption.withLock { $0 = nil } }
        if isAbandoned { interrupt() }
        return try body()
    }

    /// The reader ended, with every row or the reason it could not read them.
    func finish(_ result: Result<[Row], any Error>) {
        condition.lock()
        self.result = result
        condition.broadcast()
        condition.unlock()
    }
}

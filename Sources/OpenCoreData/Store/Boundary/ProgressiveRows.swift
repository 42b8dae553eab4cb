import Foundation

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
    /// Stops the reader when nobody wants the rows any more.
    private let stop = ReaderStop()

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
    var isAbandoned: Bool { stop.isAbandoned }

    /// Nobody wants the rows any more (see ``ReaderStop``).
    func abandon() { stop.abandon() }

    /// Runs the reader's `body`, interrupted if the rows are abandoned meanwhile (see ``ReaderStop``).
    func whileReading<T>(interrupt: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        try stop.whileReading(interrupt: interrupt, body)
    }

    /// The reader ended, with every row or the reason it could not read them.
    func finish(_ result: Result<[Row], any Error>) {
        condition.lock()
        self.result = result
        condition.broadcast()
        condition.unlock()
    }
}

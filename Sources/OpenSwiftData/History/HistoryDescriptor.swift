import Foundation

/// Mirrors SwiftData's `HistoryDescriptor`: which transactions of the history to fetch or delete.
public struct HistoryDescriptor<TransactionType: HistoryTransaction> {
    /// Mirrors `predicate`: the transactions wanted (all when `nil`).
    public var predicate: Predicate<TransactionType>?
    /// Mirrors `sortBy` (the history's order when empty).
    public var sortBy: [SortDescriptor<TransactionType>]
    /// Mirrors `fetchLimit`: at most this many transactions (no limit when 0).
    public var fetchLimit: UInt64 = 0

    /// Mirrors `init(predicate:)`.
    public init(predicate: Predicate<TransactionType>? = nil) { (self.predicate, sortBy) = (predicate, []) }

    /// Mirrors `init(predicate:sortBy:)`.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>]) {
        (self.predicate, self.sortBy) = (predicate, sortBy)
    }
}

import Foundation

/// The rows last read from or written to the store, shared by every context of a coordinator (Core
/// Data's row cache), owned by the coordinator: firing a fault whose row is cached costs no query, and a
/// save updates the cache for every context. Bounded; when full it starts over.
final class RowCache: @unchecked Sendable {
    private var rows: [ObjectKey: StoreRow] = [:]
    private let lock = NSLock()
    let capacity: Int
    /// The most rows one fetch or save puts in: a larger one would cost a hash insert per row and evict
    /// what other contexts use, for rows nobody else is about to fault.
    static let largestBatchCached = 1_000

    init(capacity: Int = 200_000) { self.capacity = capacity }

    func row(_ key: ObjectKey) -> StoreRow? {
        lock.withLock { rows[key] }
    }

    /// The cached rows of some keys of one hierarchy, placed at their keys' positions in `found`, and the
    /// positions of the keys it does not have (into `missing`), under one lock.
    func rows(root: Int, _ pks: [Int64], into found: inout [StoreRow?], missing: inout [Int]) {
        lock.withLock {
            if rows.isEmpty {
                missing.append(contentsOf: pks.indices)
                return
            }
            for (i, pk) in pks.enumerated() {
                if let row = rows[.permanent(root: root, pk: pk)] { found[i] = row } else { missing.append(i) }
            }
        }
    }

    /// Puts rows in (a `nil` row removes its key), unless there are more than ``largestBatchCached``.
    func put(_ batch: [(ObjectKey, StoreRow?)]) {
        guard batch.count <= Self.largestBatchCached else {
            // Too many to keep; but none may stay stale.
            lock.withLock {
                guard !rows.isEmpty else { return }
                for (key, _) in batch { rows[key] = nil }
            }
            return
        }
        lock.withLock {
            if rows.count + batch.count > capacity { rows.removeAll(keepingCapacity: true) }
            for (key, row) in batch {
                if let row, row.values != nil { rows[key] = row } else { rows[key] = nil }
            }
        }
    }

    /// Forgets the rows of some keys (a batch too large to keep, whose rows must not stay stale).
    func remove<Keys: Sequence<ObjectKey>>(_ keys: Keys) {
        lock.withLock {
            guard !rows.isEmpty else { return }
            for key in keys { rows[key] = nil }
        }
    }

    func remove(_ key: ObjectKey) {
        lock.withLock { _ = rows.removeValue(forKey: key) }
    }
}

import Foundation

/// The rows last read from or written to the store, shared by every context of a coordinator (Core
/// Data's row cache), owned by the coordinator: firing a fault whose row is cached costs no query, and a
/// save updates the cache for every context. Bounded; when full it starts over.
final class RowCache: @unchecked Sendable {
    /// A cached row and when it was put in (`DispatchTime` nanoseconds), for `stalenessInterval`.
    private struct Entry {
        let row: StoreRow
        let time: UInt64
    }
    private var rows: [ObjectKey: Entry] = [:]
    private let lock = NSLock()
    let capacity: Int
    /// The most rows one fetch or save puts in: a larger one would cost a hash insert per row and evict
    /// what other contexts use, for rows nobody else is about to fault.
    static let largestBatchCached = 1_000

    init(capacity: Int = 200_000) { self.capacity = capacity }

    func row(_ key: ObjectKey) -> StoreRow? {
        lock.withLock { rows[key]?.row }
    }

    /// The cached rows of some keys of one hierarchy, placed at their keys' positions in `found`, and the
    /// positions of the keys it does not have (into `missing`), under one lock. With `maxAge` (seconds), a
    /// row put in longer ago than that counts as missing.
    func rows(root: Int, _ pks: [Int64], into found: inout [StoreRow?], missing: inout [Int], maxAge: TimeInterval? = nil) {
        let oldest = maxAge.map { age in DispatchTime.now().uptimeNanoseconds &- UInt64(max(0, age) * 1e9) }
        lock.withLock {
            if rows.isEmpty {
                missing.append(contentsOf: pks.indices)
                return
            }
            for (i, pk) in pks.enumerated() {
                if let entry = rows[.permanent(root: root, pk: pk)], oldest.map({ entry.time >= $0 }) ?? true {
                    found[i] = entry.row
                } else {
                    missing.append(i)
                }
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
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            if rows.count + batch.count > capacity { rows.removeAll(keepingCapacity: true) }
            for (key, row) in batch {
                if let row, row.values != nil { rows[key] = Entry(row: row, time: now) } else { rows[key] = nil }
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

    /// Forgets every row (a store was removed).
    func removeAll() {
        lock.withLock { rows.removeAll() }
    }

    func remove(_ key: ObjectKey) {
        lock.withLock { _ = rows.removeValue(forKey: key) }
    }
}

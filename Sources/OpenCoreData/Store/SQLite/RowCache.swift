import Foundation

/// The rows last read from or written to the store, shared by every context of a coordinator (Core
/// Data's row cache): firing a fault whose row is cached costs no query, and a save updates the cache
/// for every context. Bounded; when full it starts over.
final class RowCache: @unchecked Sendable {
    private struct Key: Hashable { let root: Int; let pk: Int64 }
    private var rows: [Key: StoreRow] = [:]
    private let lock = NSLock()
    let capacity: Int
    /// The largest fetch whose rows are cached.
    static let largestFetchCached = 1_000

    init(capacity: Int = 200_000) { self.capacity = capacity }

    func row(root: Int, pk: Int64) -> StoreRow? {
        lock.withLock { rows[Key(root: root, pk: pk)] }
    }

    func put(root: Int, pk: Int64, row: StoreRow) {
        lock.withLock {
            if rows.count >= capacity { rows.removeAll(keepingCapacity: true) }
            rows[Key(root: root, pk: pk)] = row
        }
    }

    func store(_ fetched: [StoreRow], root: Int) {
        guard fetched.count <= capacity else { return }
        lock.withLock {
            if rows.count + fetched.count > capacity { rows.removeAll(keepingCapacity: true) }
            for row in fetched where row.values != nil { rows[Key(root: root, pk: row.pk)] = row }
        }
    }

    func remove(root: Int, pk: Int64) {
        lock.withLock { _ = rows.removeValue(forKey: Key(root: root, pk: pk)) }
    }
}

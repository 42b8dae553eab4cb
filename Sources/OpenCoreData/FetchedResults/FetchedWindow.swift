import Foundation

/// What a controller whose request has a `fetchLimit` or `fetchOffset` knows of its results: their first
/// `rows.count` rows in sort order — the `fetchOffset` rows before the window, the window, and a buffer
/// of up to `buffer` rows beyond it — so that a change moves the window without a refetch.
///
/// Invariant: every row of the results that is not in `rows` sorts after `rows.last`, or there is none
/// (`complete`). Removing rows keeps it; a changed row joins `rows` only if it does not sort after
/// `rows.last` (else it is left unknown, which keeps it too). When the window's last row is unknown the
/// controller fetches the edge: the rows from position `rows.count` on (``edgeLimit`` of them).
///
/// Rows are found by object ID, not by object: rows outside the window are kept unregistered in the
/// context (as a window fetch leaves them), so a change of such a row arrives with another instance, or
/// as a merged row the context never registered.
struct FetchedWindow {
    let offset: Int
    /// 0: no limit (then every row is known: `complete`).
    let limit: Int
    /// How many rows beyond the window are kept: `max(limit, 20)`.
    let buffer: Int
    let order: FetchedOrder
    private(set) var rows: [FetchedEntry] = []
    /// Whether `rows` holds every row of the results.
    private(set) var complete = false
    private var byKey: [ObjectKey: FetchedEntry] = [:]

    init(offset: Int, limit: Int, order: FetchedOrder) {
        self.offset = offset
        self.limit = limit
        self.buffer = max(limit, 20)
        self.order = order
    }

    /// The positions of the window in `rows`.
    var windowRange: Range<Int> {
        let start = min(offset, rows.count)
        return start..<(limit > 0 ? min(offset + limit, rows.count) : rows.count)
    }

    /// The rows before the window and those beyond it.
    var outside: (before: ArraySlice<FetchedEntry>, beyond: ArraySlice<FetchedEntry>) {
        let range = windowRange
        return (rows[..<range.lowerBound], rows[range.upperBound...])
    }

    /// Whether the window's last row is unknown, so the edge must be fetched.
    var needsEdge: Bool { !complete && (limit == 0 || rows.count < offset + limit) }

    /// How many rows to fetch from position `rows.count` on: to the end of the buffer (0: all).
    var edgeLimit: Int { limit > 0 ? offset + limit + buffer - rows.count : 0 }

    /// The known row with this object ID.
    func entry(for id: NSManagedObjectID) -> FetchedEntry? { byKey[id.key] }

    /// Forgets the row with this object ID, if known; returns it.
    @discardableResult
    mutating func remove(_ id: NSManagedObjectID) -> FetchedEntry? {
        guard let e = byKey.removeValue(forKey: id.key), let i = order.index(of: e, in: rows) else { return nil }
        rows.remove(at: i)
        return e
    }

    /// Places a row that belongs to the results, unless it sorts after every known row while more rows
    /// may exist (then it stays unknown). Returns whether it was placed.
    @discardableResult
    mutating func insert(_ e: FetchedEntry) -> Bool {
        if !complete {
            guard let last = rows.last, !order.precedes(last, e) else { return false }
        }
        rows.insert(e, at: order.insertionIndex(of: e, in: rows))
        byKey[e.object.objectID.key] = e
        return true
    }

    /// Takes the rows a fetch from position `rows.count` returned (at most `asked` of them, 0: all), and
    /// notes whether they were the last. A row already known is not taken twice.
    mutating func append(edge: [FetchedEntry], asked: Int) {
        let wasComplete = complete
        complete = true
        for e in edge where byKey[e.object.objectID.key] == nil { insert(e) }
        complete = wasComplete || asked == 0 || edge.count < asked
    }

    /// Forgets the rows beyond twice the buffer (memory stays bounded by the window, not the results).
    mutating func trim() {
        guard limit > 0, rows.count > offset + limit + 2 * buffer else { return }
        for e in rows[(offset + limit + buffer)...] { byKey[e.object.objectID.key] = nil }
        rows.removeSubrange((offset + limit + buffer)...)
        complete = false
    }

    /// Puts `object` (another instance of the same row: the one the context registered) in row `i`.
    mutating func replaceObject(at i: Int, with object: NSManagedObject) {
        let old = rows[i]
        rows[i] = FetchedEntry(object: object, section: old.section, keys: old.keys, tiebreak: old.tiebreak)
        byKey[object.objectID.key] = rows[i]
    }

    /// After a save: objects inserted here have store keys now. Their tiebreak becomes the key (relative
    /// order is unchanged: new keys are above every existing one and follow insertion order), and they
    /// are found by their new IDs.
    mutating func adoptStoreKeys() {
        var changed = false
        for (i, e) in rows.enumerated() {
            if let pk = e.object.objectKey.primaryKey, pk != e.tiebreak {
                rows[i] = FetchedEntry(object: e.object, section: e.section, keys: e.keys, tiebreak: pk)
                changed = true
            }
        }
        guard changed else { return }
        byKey = [:]
        for e in rows { byKey[e.object.objectID.key] = e }
    }
}

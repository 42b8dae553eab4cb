/// A context's inserted objects, in the order they were inserted (a save writes their rows in that
/// order). An entry counts while its object is still inserted under the insertion index it was listed
/// with, so taking an object out changes only the object and the count: no hash table per insert, and
/// the save's list is the entries that count, already in order. Entries that no longer count are dropped
/// when they outnumber the ones that do.
struct InsertedObjects {
    private var entries: [(object: NSManagedObject, index: Int)] = []
    /// How many entries count.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Lists `object`, just made inserted with its new insertion index.
    mutating func add(_ object: NSManagedObject) {
        entries.append((object, object.insertionIndex))
        count += 1
    }

    /// Notes that a listed object is no longer inserted (its lifecycle has changed already).
    mutating func remove() {
        count -= 1
        if count == 0 {
            entries.removeAll()
        } else if entries.count > 64, entries.count > 2 * count {
            entries.removeAll { !Self.counts($0) }
        }
    }

    /// Forgets every entry (every listed object has left the inserted state).
    mutating func removeAll() {
        entries.removeAll()
        count = 0
    }

    /// The inserted objects, in insertion order.
    var objects: [NSManagedObject] {
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        for entry in entries where Self.counts(entry) { result.append(entry.object) }
        return result
    }

    /// Whether an inserted object satisfies `predicate`.
    func contains(where predicate: (NSManagedObject) -> Bool) -> Bool {
        entries.contains { Self.counts($0) && predicate($0.object) }
    }

    private static func counts(_ entry: (object: NSManagedObject, index: Int)) -> Bool {
        entry.object.lifecycle == .inserted && entry.object.insertionIndex == entry.index
    }
}

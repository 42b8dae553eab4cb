/// A context's inserted objects, in the order they were inserted (a save writes their rows in that
/// order). An entry counts while its object is still inserted under the insertion index it was listed
/// with, so taking an object out changes only the object and the count: no hash table per insert, and
/// the save's list is the entries that count, already in order. Entries that no longer count are dropped
/// when they outnumber the ones that do.
struct InsertedObjects {
    private var entries: [(object: NSManagedObject, index: Int)] = []
    /// How many entries count.
    private(set) var count = 0
    /// Counts inserts: the last insertion index given.
    private var counter = 0

    /// The list's state at one moment: a list of its objects taken then is still the whole list while no
    /// insert has happened since and as many objects count.
    struct Mark: Equatable {
        fileprivate let counter: Int
        fileprivate let count: Int
    }

    /// The list's state now.
    var mark: Mark { Mark(counter: counter, count: count) }

    /// Whether `objects`, the list's objects (or a set of them) taken at `mark`, are still all of them.
    func isWhole(_ objects: some Collection, listedAt mark: Mark) -> Bool {
        mark == self.mark && objects.count == count
    }

    /// The insertion index of an object being inserted now (ties between unsaved objects sort by it).
    mutating func nextIndex() -> Int {
        counter += 1
        return counter
    }

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

    /// Makes `objects` persisted after their save when they are the whole list taken at `mark`: their
    /// lifecycles set directly and the list emptied at once, instead of one removal each (a large import
    /// saves every object it inserted). Returns false, changing nothing, when they are not the whole list.
    mutating func persistAll(_ objects: [NSManagedObject], listedAt mark: Mark) -> Bool {
        guard isWhole(objects, listedAt: mark) else { return false }
        for object in objects { object.lifecycle = .persisted }
        entries.removeAll()
        count = 0
        return true
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

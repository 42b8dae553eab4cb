/// A context's inserted objects, in the order they were inserted (a save writes their rows in that
/// order). An entry counts while its object is still inserted under the insertion index it was listed
/// with, so taking an object out changes only the object and the count: no hash table per insert, and
/// the save's list is the entries that count, already in order (the listed objects themselves, shared,
/// when every entry counts). Entries that no longer count are dropped when they outnumber the ones that do.
struct InsertedObjects {
    /// The listed objects, and the insertion index each was listed with.
    private var listed: [NSManagedObject] = []
    private var indices: [Int] = []
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
        listed.append(object)
        indices.append(object.insertionIndex)
        count += 1
    }

    /// Notes that a listed object is no longer inserted (its lifecycle has changed already).
    mutating func remove() {
        count -= 1
        if count == 0 {
            listed.removeAll()
            indices.removeAll()
        } else if listed.count > 64, listed.count > 2 * count {
            let kept = listed.indices.filter(counts)
            listed = kept.map { listed[$0] }
            indices = kept.map { indices[$0] }
        }
    }

    /// Empties the list at once when `objects`, taken at `mark`, are still the whole list, before they are
    /// made persisted (their lifecycles set by the caller, instead of one removal each: a large import saves
    /// every object it inserted). Returns false, changing nothing, when they are not the whole list.
    mutating func removeAll(ifWhole objects: [NSManagedObject], listedAt mark: Mark) -> Bool {
        guard isWhole(objects, listedAt: mark) else { return false }
        listed.removeAll()
        indices.removeAll()
        count = 0
        return true
    }

    /// The inserted objects, in insertion order.
    var objects: [NSManagedObject] {
        // Every entry counts when none was taken out: an entry stops counting only by a removal.
        if listed.count == count { return listed }
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        for i in listed.indices where counts(i) { result.append(listed[i]) }
        return result
    }

    /// Whether an inserted object satisfies `predicate`.
    func contains(where predicate: (NSManagedObject) -> Bool) -> Bool {
        listed.indices.contains { counts($0) && predicate(listed[$0]) }
    }

    private func counts(_ i: Int) -> Bool {
        listed[i].lifecycle == .inserted && listed[i].insertionIndex == indices[i]
    }
}

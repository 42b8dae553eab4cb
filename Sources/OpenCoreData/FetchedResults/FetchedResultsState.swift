import Foundation

/// What a fetched results controller needs of its fetch request. The controller keeps the caller's
/// `NSFetchRequest<T>` itself (shared, never copied field by field), reached through this protocol
/// because the controller's core is not generic.
protocol FetchedResultsRequest: AnyObject {
    var entityName: String? { get }
    var predicate: NSPredicate? { get }
    var sortDescriptors: [NSSortDescriptor]? { get }
    var fetchLimit: Int { get }
    var fetchOffset: Int { get }
    var includesSubentities: Bool { get }
    /// The request resolved against `model` (sort descriptors, predicate, limit and offset checked; a
    /// block predicate only when the store evaluates it, `blocksInMemory`).
    func plan(model: NSManagedObjectModel, blocksInMemory: Bool) throws -> FetchPlan
    /// The managed objects the request selects when run by `plan` (its own plan, or one for another
    /// range), pending changes included as the request says, and those the fetch registered anew.
    func fetchObjects(in context: NSManagedObjectContext, plan: FetchPlan) throws -> (objects: [NSManagedObject], registered: [NSManagedObject])
    /// The request as a store request (for routing it to the stores it reaches).
    var persistentStoreRequest: NSPersistentStoreRequest { get }
}

extension NSFetchRequest: FetchedResultsRequest {
    func plan(model: NSManagedObjectModel, blocksInMemory: Bool) throws -> FetchPlan {
        try FetchPlan(self, model: model, blocksInMemory: blocksInMemory)
    }

    func fetchObjects(in context: NSManagedObjectContext, plan: FetchPlan) throws -> (objects: [NSManagedObject], registered: [NSManagedObject]) {
        try context.fetchObjects(self, plan: plan)
    }

    var persistentStoreRequest: NSPersistentStoreRequest { self }
}

/// The controller's one sort order, in SQL and in memory: the plan's descriptors, then the store's
/// tiebreak (`Z_PK`, then insertion order for unsaved objects).
struct FetchedOrder {
    let descriptors: [NSSortDescriptor]
    /// Each descriptor's direction and string order, read once: a comparison reads no descriptor (a
    /// descriptor's collation is parsed from its selector's name each time it is asked for).
    private let rules: [(ascending: Bool, collation: StringCollation)]

    init(descriptors: [NSSortDescriptor]) {
        self.descriptors = descriptors
        rules = descriptors.map { ($0.ascending, $0.collation ?? .compare) }
    }

    /// Whether `a` sorts before `b`.
    func precedes(_ a: FetchedEntry, _ b: FetchedEntry) -> Bool { precedes(a.keys, a.tiebreak, b) }

    /// Whether an entry with `keys` and `tiebreak` sorts before `b`. The keys are read in place (an array's
    /// element passed as an argument is copied first, through the `Value` enum's outlined copy).
    @inline(__always)
    private func precedes(_ keys: [Value], _ tiebreak: Int64, _ b: FetchedEntry) -> Bool {
        keys.withUnsafeBufferPointer { a in
            b.keys.withUnsafeBufferPointer { other in
                for i in rules.indices {
                    var r = Self.compare(a, other, i, rules[i].collation)
                    if !rules[i].ascending { r = r.reversed }
                    if r != .orderedSame { return r == .orderedAscending }
                }
                return tiebreak < b.tiebreak
            }
        }
    }

    /// `NSSortDescriptor`'s order of the values at `i`, with the two commonest kinds (integers, strings under
    /// `compare:`) compared here without the general comparison's kind switch.
    @inline(__always)
    private static func compare(_ a: UnsafeBufferPointer<Value>, _ b: UnsafeBufferPointer<Value>, _ i: Int,
                                _ collation: StringCollation) -> ComparisonResult {
        if case .int(let x) = a[i], case .int(let y) = b[i] {
            return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        }
        if case .compare = collation, case .string(let x) = a[i], case .string(let y) = b[i] {
            return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        }
        return NSSortDescriptor.compare(a[i], b[i], collation: collation)
    }

    /// The first index of `rows` (sorted) whose entry does not precede `e`. The rows are read in place
    /// (`rows[mid]` would copy an entry, retaining its object, section name and keys, at every step).
    func insertionIndex(of e: FetchedEntry, in rows: [FetchedEntry]) -> Int {
        rows.withUnsafeBufferPointer { rows in
            var lo = 0, hi = rows.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if precedes(rows[mid].keys, rows[mid].tiebreak, e) { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
    }

    /// Merges `arriving` (sorted) into `rows` (sorted) from the back, in place: each row moves once,
    /// never copied. Calls `placed` with each arriving entry and its row.
    func merge(_ arriving: [FetchedEntry], into rows: inout [FetchedEntry], placed: (FetchedEntry, Int) -> Void) {
        let n = rows.count
        rows.append(contentsOf: arriving)
        rows.withUnsafeMutableBufferPointer { rows in
            let base = rows.baseAddress!
            // The appended copies make room; the merge writes every slot from `arriving` or the rows.
            (base + n).deinitialize(count: arriving.count)
            arriving.withUnsafeBufferPointer { arriving in
                var i = n - 1, j = arriving.count - 1, w = n + arriving.count - 1
                while j >= 0 {
                    if i >= 0, precedes(arriving[j].keys, arriving[j].tiebreak, base[i]) {
                        (base + w).moveInitialize(from: base + i, count: 1)
                        i -= 1
                    } else {
                        (base + w).initialize(to: arriving[j])
                        placed(arriving[j], w)
                        j -= 1
                    }
                    w -= 1
                }
            }
        }
    }

    /// The index of `e`'s object in `rows` (sorted), by binary search on the values that placed it.
    func index(of e: FetchedEntry, in rows: [FetchedEntry]) -> Int? {
        let i = insertionIndex(of: e, in: rows)
        if i < rows.count, rows[i].object === e.object { return i }
        // Equal keys and tiebreaks cannot happen (tiebreaks are unique); fall back to a scan.
        return rows.firstIndex { $0.object === e.object }
    }
}

/// The controller's results: the sections in order and, for each object shown, the entry that placed it
/// (to find its old position by binary search after its values changed). The two change only together,
/// through ``replaceAll(_:)``, ``apply(removing:inserting:indexTitle:)``, ``move(_:at:to:)`` and
/// ``replace(_:with:)``.
struct FetchedResultsState {
    let order: FetchedOrder
    private(set) var sections: [FetchedSection] = []
    private var entries: [ObjectIdentifier: FetchedEntry] = [:]

    init(_ sections: [FetchedSection], order: FetchedOrder) {
        self.order = order
        replaceAll(sections)
    }

    /// The entry that placed `object`, if it is shown.
    func entry(for object: NSManagedObject) -> FetchedEntry? { entries[ObjectIdentifier(object)] }

    /// Whether `object` is shown.
    func contains(_ object: NSManagedObject) -> Bool { entries[ObjectIdentifier(object)] != nil }

    /// The index of the section named `name`, comparing names in place (`firstIndex(where:)` copies
    /// each section it passes, retaining its name, title and rows).
    private func sectionIndex(named name: String) -> Int? {
        sections.withUnsafeBufferPointer { sections in sections.indices.first { sections[$0].name == name } }
    }

    /// The position of a shown entry (section by name, row by binary search).
    func indexPath(of e: FetchedEntry) -> IndexPath? {
        guard let s = sectionIndex(named: e.section),
              let row = order.index(of: e, in: sections[s].entries) else { return nil }
        return IndexPath(row: row, section: s)
    }

    /// Replaces every section.
    mutating func replaceAll(_ sections: [FetchedSection]) {
        self.sections = sections
        entries = [:]
        for section in sections { for e in section.entries { entries[ObjectIdentifier(e.object)] = e } }
    }

    /// Takes the shown entries `leaving` out and places `arriving` (the same object may be in both, with
    /// its new values), returning each one's place before and after. A section that loses all its rows
    /// goes (so that it does not steer where new sections go); a new one, titled `indexTitle(name)`, is
    /// placed by its first row.
    ///
    /// A section with few changes finds each old place and each new place by binary search; one where
    /// the changes are a sizable share of its rows is walked once to find the old places, compacted, and
    /// merged with its sorted arrivals, which gives the new places (no search: with thousands of changes,
    /// each search step is a cache miss on a row and its key array).
    mutating func apply(removing leaving: [FetchedEntry], inserting arriving: [FetchedEntry],
                        indexTitle: (String) -> String?) -> (old: [ObjectIdentifier: IndexPath], new: [ObjectIdentifier: IndexPath]) {
        var old: [ObjectIdentifier: IndexPath] = [:], new: [ObjectIdentifier: IndexPath] = [:]
        old.reserveCapacity(leaving.count)
        new.reserveCapacity(arriving.count)
        // Old places, section by section; then each section's leaving rows go in one pass.
        var emptied: [Int] = []
        for (name, group) in Dictionary(grouping: leaving, by: \.section) {
            guard let s = sectionIndex(named: name) else { continue }
            var rows: [Int] = []
            rows.reserveCapacity(group.count)
            if Self.walks(group.count, sections[s].entries.count) {
                let ids = Set(group.map { ObjectIdentifier($0.object) })
                sections[s].entries.withUnsafeBufferPointer { entries in
                    for r in entries.indices where ids.contains(ObjectIdentifier(entries[r].object)) { rows.append(r) }
                }
            } else {
                for e in group { if let r = order.index(of: e, in: sections[s].entries) { rows.append(r) } }
                rows.sort()
            }
            for r in rows { old[ObjectIdentifier(sections[s].entries[r].object)] = IndexPath(row: r, section: s) }
            Self.remove(sortedRows: rows, from: &sections[s].entries)
            if sections[s].entries.isEmpty { emptied.append(s) }
        }
        for s in emptied.sorted(by: >) { sections.remove(at: s) }
        for e in leaving { entries[ObjectIdentifier(e.object)] = nil }

        // New places: rows within their section first, sections' indexes once every section is in place.
        var rowsByName: [String: [(ObjectIdentifier, Int)]] = [:]
        for (name, group) in Dictionary(grouping: arriving, by: \.section) {
            let sorted = group.sorted(by: order.precedes)
            var placed: [(ObjectIdentifier, Int)] = []
            placed.reserveCapacity(sorted.count)
            if let s = sectionIndex(named: name) {
                if Self.walks(sorted.count, sections[s].entries.count) {
                    order.merge(sorted, into: &sections[s].entries) { placed.append((ObjectIdentifier($0.object), $1)) }
                } else {
                    // Ascending, so that a row placed earlier never shifts.
                    for e in sorted {
                        let r = order.insertionIndex(of: e, in: sections[s].entries)
                        sections[s].entries.insert(e, at: r)
                        placed.append((ObjectIdentifier(e.object), r))
                    }
                }
            } else {
                var lo = 0, hi = sections.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if let first = sections[mid].entries.first, order.precedes(first, sorted[0]) { lo = mid + 1 } else { hi = mid }
                }
                sections.insert(FetchedSection(name: name, indexTitle: indexTitle(name), entries: sorted), at: lo)
                for (r, e) in sorted.enumerated() { placed.append((ObjectIdentifier(e.object), r)) }
            }
            rowsByName[name] = placed
        }
        for e in arriving { entries[ObjectIdentifier(e.object)] = e }
        for (s, section) in sections.enumerated() {
            guard let placed = rowsByName[section.name] else { continue }
            for (id, r) in placed { new[id] = IndexPath(row: r, section: s) }
        }
        return (old, new)
    }

    /// Whether `changes` rows of a section of `count` are placed by walking it rather than by binary
    /// searches (a search costs about log2(count) cache misses; a walk reads the rows in order).
    private static func walks(_ changes: Int, _ count: Int) -> Bool { changes * 64 >= count }

    /// Removes the rows at `rows` (ascending) in one pass: the rows kept slide down, never copied.
    private static func remove(sortedRows rows: [Int], from entries: inout [FetchedEntry]) {
        guard let first = rows.first else { return }
        if rows.count == 1 { entries.remove(at: first); return }
        var write = first, next = 0
        for read in first..<entries.count {
            if next < rows.count, rows[next] == read { next += 1; continue }
            entries.swapAt(write, read)
            write += 1
        }
        entries.removeLast(entries.count - write)
    }

    /// Moves a shown entry, at `path`, to where `new` (the same object, in the same section) belongs: only
    /// the rows between the two places shift, where a removal and an insertion would each shift the
    /// section's tail (for one change in a section of thousands, most of its time, in cache misses).
    /// Returns its new place. The caller passes the place it already found (each binary search costs a
    /// cache miss or two a step).
    mutating func move(_ old: FetchedEntry, at path: IndexPath, to new: FetchedEntry) -> IndexPath {
        let i = path.row
        // `old` is still at `i`: counted among the rows before `new` if it sorts before it.
        let place = order.insertionIndex(of: new, in: sections[path.section].entries)
        let j = place > i ? place - 1 : place
        sections[path.section].entries.withUnsafeMutableBufferPointer { rows in
            let base = rows.baseAddress!
            let leaving = (base + i).move()
            if i < j {
                (base + i).moveInitialize(from: base + i + 1, count: j - i)
            } else if j < i {
                (base + j + 1).moveInitialize(from: base + j, count: i - j)
            }
            (base + j).initialize(to: new)
            _ = leaving
        }
        entries[ObjectIdentifier(new.object)] = new
        return IndexPath(row: j, section: path.section)
    }

    /// Puts `new` where `old` is (same object and relative order: a new tiebreak after a save).
    mutating func replace(_ old: FetchedEntry, with new: FetchedEntry) {
        guard let path = indexPath(of: old) else { return }
        sections[path.section].entries[path.row] = new
        entries[ObjectIdentifier(old.object)] = nil
        entries[ObjectIdentifier(new.object)] = new
    }
}

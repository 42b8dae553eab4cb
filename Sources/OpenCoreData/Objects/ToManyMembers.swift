import Foundation

/// What a to-many relationship slot holds once its objects are known: their references, in the
/// relationship's order when it is ordered (otherwise in the order they were read or added, which means
/// nothing). Kept in the slot as one ``Value`` (`.collection`, see ``value``), which predicates read as
/// a set (an array when ordered) of the references; two are equal when they hold the same keys, in the
/// same order when ordered.
///
/// Membership tests (adding and removing members) look keys up by position once a list is longer than
/// ``indexedCount``: the positions are made by the first such test and kept by the changes after it.
struct ToManyMembers: Hashable, @unchecked Sendable {
    /// The members, each key once.
    private(set) var refs: [ObjectRef]
    /// Each member's position in ``refs`` by key, once made (see ``indexedCount``).
    private var positions: [ObjectKey: Int]?
    let isOrdered: Bool

    /// The longest list whose membership tests compare keys one by one.
    static let indexedCount = 16

    /// Members given once each (as the store reads them: no key twice).
    init(_ refs: [ObjectRef], ordered: Bool) {
        self.refs = refs
        self.isOrdered = ordered
    }

    /// The members of `refs`, each key once (the first one kept).
    init(distinct refs: [ObjectRef], ordered: Bool) {
        self.init([], ordered: ordered)
        self.refs.reserveCapacity(refs.count)
        for ref in refs { _ = insert(ref, at: nil) }
    }

    /// As a slot's value.
    var value: Value { .collection(OwnedCollection(Box(self))) }

    /// What a slot's ``Value`` holds.
    final class Box: CollectionValue {
        let members: ToManyMembers
        init(_ members: ToManyMembers) { self.members = members }
        var expanded: Value { members.predicateValue }
        func isEqual(to other: any CollectionValue) -> Bool { (other as? Box)?.members == members }
        func hash(into hasher: inout Hasher) { members.hash(into: &hasher) }
    }

    var count: Int { refs.count }

    /// Where the member with `key` is, if it is one.
    mutating func position(of key: ObjectKey) -> Int? {
        if refs.count <= Self.indexedCount { return refs.firstIndex { $0.key == key } }
        if positions == nil {
            var made: [ObjectKey: Int] = [:]
            made.reserveCapacity(refs.count)
            for (i, ref) in refs.enumerated() { made[ref.key] = i }
            positions = made
        }
        return positions![key]
    }

    /// Adds a member (at `index` when ordered, at the end when `nil`); false if it was one already.
    mutating func insert(_ ref: ObjectRef, at index: Int?) -> Bool {
        guard position(of: ref.key) == nil else { return false }
        let at = isOrdered ? Swift.min(index ?? refs.count, refs.count) : refs.count
        if at == refs.count {
            positions?[ref.key] = at
            refs.append(ref)
        } else {
            refs.insert(ref, at: at)
            positions = nil
        }
        return true
    }

    /// Removes a member; false if it was not one.
    mutating func remove(_ key: ObjectKey) -> Bool {
        guard let i = position(of: key) else { return false }
        positions?[key] = nil
        if isOrdered {
            refs.remove(at: i)
            if i < refs.count { positions = nil }
        } else {
            // Order means nothing here: the last member takes the removed one's place.
            let last = refs.removeLast()
            if i < refs.count {
                refs[i] = last
                positions?[last.key] = i
            }
        }
        return true
    }

    /// The members as the predicates see a to-many relationship's value: a set of references, an array
    /// when ordered.
    var predicateValue: Value {
        isOrdered ? .array(refs.map(\.value)) : .set(Set(refs.map(\.value)))
    }

    static func == (a: ToManyMembers, b: ToManyMembers) -> Bool {
        guard a.isOrdered == b.isOrdered, a.refs.count == b.refs.count else { return false }
        if a.refs == b.refs { return true }
        if a.isOrdered { return false }
        if a.refs.count <= indexedCount { return a.refs.allSatisfy { ref in b.refs.contains { $0.key == ref.key } } }
        let keys = Set(b.refs.lazy.map(\.key))
        return a.refs.allSatisfy { keys.contains($0.key) }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(isOrdered)
        hasher.combine(refs.count)
        if isOrdered {
            for ref in refs { hasher.combine(ref.key) }
        } else {
            // Independent of the order, as equality is.
            hasher.combine(refs.reduce(0) { $0 &+ $1.key.hashValue })
        }
    }
}

extension Value {
    /// The members a loaded to-many slot holds, `nil` for anything else.
    var toManyMembers: ToManyMembers? {
        guard case .collection(let c) = self, let box = c.value as? ToManyMembers.Box else { return nil }
        return box.members
    }

    /// Changes the members of a loaded to-many slot in place: the slot gives them up while `body` runs,
    /// so that they are changed without a copy. Returns `nil` (and changes nothing) for anything else.
    mutating func changeMembers<T>(_ body: (inout ToManyMembers) -> T) -> T? {
        guard var members = toManyMembers else { return nil }
        self = .null
        defer { self = members.value }
        return body(&members)
    }
}

import Synchronization

/// What uniquely names a row: the hierarchy's root entity number and `Z_PK`, or a temporary number.
package enum ObjectKey: Hashable, Sendable {
    case permanent(root: Int, pk: Int64)
    case temporary(UInt64)

    /// The row's primary key (`Z_PK`), `nil` while temporary.
    var primaryKey: Int64? {
        if case .permanent(_, let pk) = self { return pk }
        return nil
    }

    /// Whether it names an object not saved yet.
    var isTemporary: Bool {
        if case .temporary = self { return true }
        return false
    }

    /// A temporary key no other object of this process has had.
    static func newTemporary() -> ObjectKey { .temporary(temporaryCounter.add(1, ordering: .relaxed).newValue) }

    /// One word to the hasher instead of the case and each field (registries and row caches hash keys
    /// on every fetch, fault and prefetch): the key with the root in its top bits, or a temporary number
    /// inverted. Keys that share a word are told apart by `==`.
    package func hash(into hasher: inout Hasher) {
        switch self {
        case .permanent(let root, let pk):
            let r = UInt64(truncatingIfNeeded: root)
            hasher.combine(UInt64(bitPattern: pk) ^ (r << 48) ^ (r << 24))
        case .temporary(let n): hasher.combine(~n)
        }
    }
}

/// A key's `root` is the hierarchy's root entity number, with the store's tag above ``entityBits`` when
/// the row is in a store whose tag is not 0: two stores holding one hierarchy (overlapping
/// configurations) give their rows different keys, so rows of the same primary key in two stores are
/// never confused (registry, row cache, saves). A store's tag is 0 unless a store holding one of its
/// hierarchies was there when it was added (see `StoreRoutes`): the usual key root is the entity number.
extension ObjectKey {
    static let entityBits = 20
    /// The key root of hierarchy `root` in a store of tag `tag`.
    static func keyRoot(_ root: Int, tag: Int) -> Int { root | (tag << entityBits) }
    /// The hierarchy's root entity number of a key root.
    static func entityRoot(_ keyRoot: Int) -> Int { keyRoot & ((1 << entityBits) - 1) }
    /// The key root (hierarchy and store tag) of a permanent key; nil for a temporary one.
    var keyRoot: Int? {
        if case .permanent(let root, _) = self { return root }
        return nil
    }
    /// The store tag of a permanent key (0 for a temporary one).
    var storeTag: Int {
        if case .permanent(let root, _) = self { return Self.tag(root) }
        return 0
    }
    /// The store tag of a key root.
    static func tag(_ keyRoot: Int) -> Int { keyRoot >> entityBits }
}

private let temporaryCounter = Atomic<UInt64>(0)

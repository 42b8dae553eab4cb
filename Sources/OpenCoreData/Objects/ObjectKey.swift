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
        case .permanent(let root, let pk): hasher.combine(UInt64(bitPattern: pk) ^ (UInt64(truncatingIfNeeded: root) << 48))
        case .temporary(let n): hasher.combine(~n)
        }
    }
}

private let temporaryCounter = Atomic<UInt64>(0)

/// A context's registered objects by key (uniquing: one object per ID): objects with store keys apart
/// from objects with temporary ones, so that a save that gives every temporary object its store key
/// drops the temporary table in one step instead of removing each object from it.
struct ObjectRegistry {
    /// Objects with permanent keys (`Z_PK`).
    private var stored: [ObjectKey: NSManagedObject] = [:]
    /// Objects with temporary keys, by their number: inserted objects, and faults for temporary IDs of
    /// other contexts.
    private var temporary: [UInt64: NSManagedObject] = [:]

    subscript(key: ObjectKey) -> NSManagedObject? {
        get {
            switch key {
            case .permanent: return stored[key]
            case .temporary(let n): return temporary[n]
            }
        }
        set {
            switch key {
            case .permanent: stored[key] = newValue
            case .temporary(let n): temporary[n] = newValue
            }
        }
    }

    /// Every registered object (made on each call).
    var values: [NSManagedObject] { Array(stored.values) + Array(temporary.values) }
    var count: Int { stored.count + temporary.count }
    /// Objects registered under temporary keys.
    var temporaryCount: Int { temporary.count }

    /// Room for `count` objects with permanent keys.
    mutating func reserveCapacity(_ count: Int) { stored.reserveCapacity(count) }

    mutating func removeValue(forKey key: ObjectKey) -> NSManagedObject? {
        defer { self[key] = nil }
        return self[key]
    }

    mutating func removeAll() {
        stored.removeAll()
        temporary.removeAll()
    }

    /// Forgets every object registered under a temporary key (all of them took permanent keys).
    mutating func removeAllTemporary() { temporary.removeAll() }
}

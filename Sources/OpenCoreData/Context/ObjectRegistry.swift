/// A context's registered objects by key (uniquing: one object per ID): objects with store keys apart
/// from objects with temporary ones, so that a save that gives every temporary object its store key
/// drops the temporary table in one step instead of removing each object from it.
///
/// The objects of a fetch into a context that held none, and of any batched fetch, are registered as a
/// group with their batch (``register(_:allNew:)``), and the objects a save gave store keys as a group of
/// their own (``registerSaved(_:)``); a group is entered in the table of stored objects only when a key is
/// first looked up or changed: such a fetch or save hashes nothing until then. A fetch looks its keys
/// up only when the registry holds objects already (uniquing), and groups only the objects it made, so
/// no two registered objects share a key and none is registered twice.
struct ObjectRegistry {
    /// Objects with permanent keys (`Z_PK`).
    var stored: [ObjectKey: NSManagedObject] = [:]
    /// Objects with temporary keys, by their number: inserted objects, and faults for temporary IDs of
    /// other contexts.
    private var temporary: [UInt64: NSManagedObject] = [:]
    /// Groups of fetched objects with permanent keys not in `stored` yet.
    var unsettled: [[NSManagedObject]] = []
    /// For each group of ``unsettled``, the batch whose `objects` it is (registered all new), else `nil`.
    var unsettledBatches: [FaultBatch?] = []
    /// The batches registered since the last `detachBatches(reset:)`, weakly: a batch no object refers
    /// to any more (a later batched fetch of the same rows re-pointed them) goes away with its lists.
    var batches: [WeakBatch] = []
    /// One bit per hierarchy root (its number modulo 64) that an object with a store key was registered
    /// under since the last `removeAll()` (see ``mayHold(root:)``).
    var roots: UInt64 = 0
    /// How many objects the registry may hold before the next ``sweep()`` (see ``sweepIfDue()``).
    var nextSweep = ObjectRegistry.firstSweep
    /// Groups a save registered whose roots are not in ``roots`` yet (they are added when first asked).
    private var savedRootsUnknown = false

    subscript(key: ObjectKey) -> NSManagedObject? {
        mutating get {
            settle()
            switch key {
            case .permanent: return stored[key]
            case .temporary(let n): return temporary[n]
            }
        }
        set {
            settle()
            switch key {
            case .permanent(let root, _):
                stored[key] = newValue
                if newValue != nil { roots |= Self.bit(root) }
            case .temporary(let n): temporary[n] = newValue
            }
        }
    }

    /// Every registered object (made on each call).
    var values: [NSManagedObject] { Array(stored.values) + Array(temporary.values) + unsettled.joined() }
    var count: Int { stored.count + temporary.count + unsettled.reduce(0) { $0 + $1.count } }
    /// Whether an object is registered under a temporary key.
    var holdsTemporaryKeys: Bool { !temporary.isEmpty }
    /// Whether no object is registered.
    var isEmpty: Bool { stored.isEmpty && temporary.isEmpty && unsettled.isEmpty }

    /// Room for `count` objects with permanent keys.
    mutating func reserveCapacity(_ count: Int) { stored.reserveCapacity(count) }

    mutating func removeValue(forKey key: ObjectKey) -> NSManagedObject? {
        defer { self[key] = nil }
        return self[key]
    }

    mutating func removeAll() {
        stored.removeAll()
        temporary.removeAll()
        unsettled.removeAll()
        unsettledBatches.removeAll()
        nextSweep = Self.firstSweep
        roots = 0
        savedRootsUnknown = false
    }

    /// Whether an object with a store key of hierarchy `root` may be registered: false means none is,
    /// so that objects of that hierarchy can be made and registered without looking their keys up.
    mutating func mayHold(root: Int) -> Bool {
        noteSavedRoots()
        return roots & Self.bit(root) != 0
    }

    private mutating func noteSavedRoots() {
        guard savedRootsUnknown else { return }
        for group in unsettled {
            for object in group { roots |= Self.bit(object.layout.rootEntityID) }
        }
        savedRootsUnknown = false
    }

    private static func bit(_ root: Int) -> UInt64 { 1 << UInt64(root & 63) }

    /// Registers objects of hierarchy `root` made for store rows whose keys are not registered (each
    /// key once, see ``mayHold(root:)``): entered in the table of stored objects when a key is first
    /// looked up, as a fetch's objects are.
    mutating func registerNew(_ objects: [NSManagedObject], root: Int) {
        guard !objects.isEmpty else { return }
        unsettled.append(objects)
        unsettledBatches.append(nil)
        roots |= Self.bit(root)
    }

    /// Registers the objects of a batched fetch (`batch.objects`): all of them when they are all new
    /// (`allNew`), else those it made (its bare faults: the others were registered already).
    mutating func register(_ batch: FaultBatch, allNew: Bool) {
        let made = allNew ? batch.objects : batch.objects.filter(\.isBare)
        if !made.isEmpty {
            unsettled.append(made)
            unsettledBatches.append(allNew ? batch : nil)
        }
        roots |= Self.bit(batch.root)
        if batches.count >= 16, batches.count.nonzeroBitCount == 1 { batches.removeAll { $0.registration == nil } }
        batches.append(WeakBatch(registration: batch.registration))
    }

    /// Registers objects a save gave their store keys, which were registered under `formerKeys` (their
    /// temporary keys). When those were every temporary key registered (an import), that table is emptied
    /// at once. The objects are registered as one group, entered in the table of stored objects when a key
    /// is first looked up (an import that nobody looks up again hashes none of them); objects registered
    /// under their store keys already (by `obtainPermanentIDs`) are entered again, harmlessly.
    mutating func registerSaved(_ objects: [NSManagedObject], formerKeys: [ObjectKey]) {
        if !formerKeys.isEmpty, formerKeys.count == temporary.count {
            temporary.removeAll()
        } else {
            for key in formerKeys { self[key] = nil }
        }
        if !objects.isEmpty {
            unsettled.append(objects)
            unsettledBatches.append(nil)
            savedRootsUnknown = true
        }
    }

    /// Enters the objects of registered batches in the table of stored objects.
    mutating func settle() {
        guard !unsettled.isEmpty else { return }
        noteSavedRoots()
        let groups = unsettled
        unsettled = []
        unsettledBatches = []
        stored.reserveCapacity(stored.count + groups.reduce(0) { $0 + $1.count })
        for group in groups {
            for object in group { stored[object.objectKey] = object }
        }
    }

    /// Lets go of the batches' objects (which hold their batches), marking their bare faults detached
    /// when the context was reset: called by the context's `reset()` and at its end.
    mutating func detachBatches(reset: Bool) {
        for case let registration? in batches.lazy.map(\.registration) {
            registration.objects = []
            if reset {
                registration.isDetached = true
                registration.context = nil
            }
        }
        batches = []
    }
}

/// A batch the registry lists without keeping it alive, by its registration (see
/// ``ObjectRegistry/detachBatches(reset:)``).
struct WeakBatch {
    weak var registration: BatchRegistration?
}

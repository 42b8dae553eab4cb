/// Forgetting registered objects nobody holds: Core Data's contexts hold their unchanged objects weakly
/// (`retainsRegisteredObjects` false, the default), so a long-lived context that fetches and drops objects
/// does not grow without end. Here the registry holds its objects strongly and, from time to time (a fetch
/// when it holds twice what it held after the last sweep), lets go of those it is the only holder of.
/// An object changed, inserted or deleted is also held by the context's lists of changes, an object the
/// app, a controller, an undo event or another object's relationship set holds is held by them: neither
/// is let go, so uniquing stays whole (one object per row while anyone can reach it). What is let go is
/// what no one could ask for again but by its ID, which makes a new fault, as in Core Data.
///
/// "The only holder" is Swift's own count (`isKnownUniquelyReferenced`), asked of the registry's one
/// reference: the registry makes sure it holds each object once while it asks (groups entered in its
/// table, a batch's list taken out of the batch while its objects are asked about).
extension ObjectRegistry {
    /// Objects below which the registry never sweeps.
    static let firstSweep = 1_024

    /// Sweeps when the registry holds at least ``nextSweep`` objects; the next sweep is then due at twice
    /// what is left (at least ``firstSweep``), so that sweeping costs a constant share of registering.
    mutating func sweepIfDue() {
        guard count >= nextSweep else { return }
        sweep()
        nextSweep = max(2 * count, Self.firstSweep)
    }

    /// Lets go of every registered object the registry is the only holder of: whole fetches first (a
    /// batch whose objects nobody holds, its group never entered in the table), then single objects, then
    /// the batches whose objects are in the table (let go only when none of a batch's objects is held,
    /// since a batch reaches its objects by position).
    mutating func sweep() {
        let asked = sweepUnsettledBatches()
        settle()
        // By index, not `for i in stored.indices`: the indices would hold the table, and the first question
        // would then copy it.
        var gone: [ObjectKey] = []
        var i = stored.startIndex
        while i != stored.endIndex {
            if isKnownUniquelyReferenced(&stored.values[i]) { gone.append(stored.keys[i]) }
            stored.formIndex(after: &i)
        }
        for key in gone { stored[key] = nil }
        for case let registration? in batches.lazy.map(\.registration) where !registration.objects.isEmpty && !asked.contains(ObjectIdentifier(registration)) {
            sweepSettled(registration)
        }
        batches.removeAll { $0.registration == nil }
        if isEmpty { roots = 0 }
    }

    /// The groups that are a batch's own list (a fetch into a context that held nothing): each object
    /// held once, by that list. A batch none of whose objects is held elsewhere goes with its group.
    /// Returns the batches asked about.
    private mutating func sweepUnsettledBatches() -> Set<ObjectIdentifier> {
        var asked = Set<ObjectIdentifier>()
        var groups = unsettled, owners = unsettledBatches
        unsettled = []
        unsettledBatches = []
        while !groups.isEmpty {
            // Moved out, so that the list is the group's only holder while its objects are asked about.
            var list = groups.removeLast()
            guard let batch = owners.removeLast() else {
                unsettled.append(list)
                unsettledBatches.append(nil)
                continue
            }
            asked.insert(ObjectIdentifier(batch.registration))
            batch.objects = []
            if !Self.heldOnlyHere(&list) {
                batch.objects = list
                unsettled.append(list)
                unsettledBatches.append(batch)
            }
        }
        return asked
    }

    /// A batch whose objects are in the table: each taken out of the table and asked about in the batch's
    /// list; all go when none is held elsewhere, else all are put back.
    private mutating func sweepSettled(_ batch: BatchRegistration) {
        var list = batch.objects
        batch.objects = []
        var taken: [(key: ObjectKey, index: Int)] = []
        for i in list.indices {
            guard let key = list[i].assignedKey, case .permanent = key, stored[key] === list[i] else { continue }
            stored[key] = nil
            taken.append((key, i))
        }
        if Self.heldOnlyHere(&list) { return }
        for (key, i) in taken { stored[key] = list[i] }
        batch.objects = list
    }

    /// Whether `list` is the only holder of each of its objects (a list shared with another array is
    /// copied by the first question, and then holds none of them alone).
    private static func heldOnlyHere(_ list: inout [NSManagedObject]) -> Bool {
        for i in list.indices where !isKnownUniquelyReferenced(&list[i]) { return false }
        return true
    }
}

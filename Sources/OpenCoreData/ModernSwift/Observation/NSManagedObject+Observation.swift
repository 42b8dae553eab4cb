import Observation

/// Not in Core Data (its objects are `ObservableObject`s, with key-value observing under them): managed
/// objects take part in Swift's Observation. A `@Managed` property or ``NSManagedObject/value(forKey:)``
/// read inside `withObservationTracking` is tracked, and the tracking's `onChange` runs when that
/// property of that object changes: set in its context (also as an inverse), undone, rolled back, merged
/// from another context's save, refreshed, or turned into a fault (docs/ModernSwift.md).
extension NSManagedObject: Observable {}

extension NSManagedObject {
    /// A read of `slot` by a getter: told to Observation when a tracking closure may be running.
    @inline(__always) func noteObservedRead(_ slot: Int) {
        if ObservationScope.mayBeTracking { observedRead(slot) }
    }

    @inline(never) private func observedRead(_ slot: Int) {
        let extras = self.extras
        let observation = extras.observation ?? ObjectObservation()
        extras.observation = observation
        let keyPath: any ObservedKeyPath
        if let known = observation.keyPaths[slot] {
            keyPath = known
        } else {
            keyPath = ObservedKeyPaths.keyPath(of: type(of: self), layout.properties[slot].name)
            observation.keyPaths[slot] = keyPath
        }
        keyPath.access(observation.registrar, self)
    }

    /// A write of the values begins: an observed object keeps them until it ends.
    @inline(never) func observedWriteBegins() {
        guard let observation = existingExtras?.observation else { return }
        observation.valuesBeforeWrite = values
    }

    /// A write of the values ended: what it changed is announced.
    @inline(never) func observedWriteEnded() {
        guard let observation = existingExtras?.observation, let old = observation.valuesBeforeWrite else { return }
        observation.valuesBeforeWrite = nil
        observedValuesChanged(observation, from: old, to: values)
    }

    /// The values went from `old` to `new` (a set, an inverse, an undo, a merge, a refresh): each property
    /// read under tracking whose value is another one now is announced. Filling a fault (`old` empty, or a
    /// to-many fault's slot) changes nothing; turning into one (`new` empty, a to-many fault now) may
    /// change anything read.
    func observedValuesChanged(_ observation: ObjectObservation, from old: [Value], to new: [Value]) {
        guard !old.isEmpty else { return }
        for (slot, keyPath) in observation.keyPaths where Self.mayDiffer(old, new, slot) {
            keyPath.announceChange(observation.registrar, self)
        }
    }

    private static func mayDiffer(_ old: [Value], _ new: [Value], _ slot: Int) -> Bool {
        guard slot < old.count, slot < new.count else { return true }
        if old[slot].isToManyFault { return false }
        return !old[slot].isIdentical(to: new[slot])
    }
}

import Foundation

/// The rarely used part of a managed object's state, kept apart so that the common object does not
/// carry it: what `setObservationInfo(_:)` stored, the values `willChangeValue(forKey:)` saw, and the
/// marks that make a save write an object whose modeled values did not change, its part in Observation.
final class ObjectExtras {
    /// What `setObservationInfo(_:)` stored.
    var observationInfo: UnsafeMutableRawPointer?
    /// The value of each key between `willChangeValue(forKey:)` and `didChangeValue(forKey:)` (a key
    /// may be announced in nested pairs: the innermost pair is last).
    var changing: [(key: String, value: Value)] = []
    /// An unmodeled property changed while the class's `contextShouldIgnoreUnmodeledPropertyChanges`
    /// was false: the object counts as updated until it is saved, rolled back or refreshed.
    var changedUnmodeled = false
    /// `detectConflicts(for:)` asked that the next save check the row version even if nothing changed.
    var checksVersion = false
    /// Nonzero while the object turns into a fault (``NSManagedObject/faultingState``).
    var transition = 0
    /// Made when a property is first read inside `withObservationTracking`.
    var observation: ObjectObservation?
    /// The arrays fetched properties read, by property name, until the object is refreshed.
    var fetchedValues: [String: [Any]] = [:]
}

extension NSManagedObject {
    /// The object's extras, made now if it had none.
    var extras: ObjectExtras {
        let state = objectState
        if let extras = state.extras { return extras }
        let extras = ObjectExtras()
        state.extras = extras
        return extras
    }

    /// The object's extras if it has any, without making them.
    var existingExtras: ObjectExtras? {
        isBare ? nil : objectState.extras
    }

    /// Whether the next save writes the object although its modeled values did not change (an unmodeled
    /// change the class does not ignore, or `detectConflicts(for:)`).
    var isMarkedForSave: Bool {
        guard let extras = existingExtras else { return false }
        return extras.changedUnmodeled || extras.checksVersion
    }

    /// A row of the store in its context, neither inserted nor deleted (fetched objects keep the
    /// lifecycle `.new`; saved inserts become `.persisted`).
    var isSavedAndRegistered: Bool {
        (lifecycle == .new || lifecycle == .persisted) && managedObjectContext != nil
    }

    /// Clears the marks of ``isMarkedForSave`` (after a save, a rollback, a refresh).
    func clearSaveMarks() {
        guard let extras = existingExtras else { return }
        extras.changedUnmodeled = false
        extras.checksVersion = false
    }
}

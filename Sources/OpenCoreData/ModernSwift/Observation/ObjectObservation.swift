import Observation
import OpenCoreDataPredicates
import Synchronization

/// A managed object's part in Swift's Observation, made the first time one of its properties is read
/// inside a `withObservationTracking` closure (kept in its ``ObjectExtras``): its registrar and the key
/// path of each property read so. Only those properties' changes are announced.
final class ObjectObservation {
    /// Whether the process has made one: until then a write of an object's values does not look for its
    /// observation (the common program never does; as ``UndoRecording/everUsed``).
    static var anyMade: Bool { made.load(ordering: .relaxed) }
    private static let made = Atomic<Bool>(false)

    let registrar = ObservationRegistrar()
    /// Slot → the key path its reads and changes are announced with.
    var keyPaths: [Int: any ObservedKeyPath] = [:]
    /// The values as a write of them began (``NSManagedObject/values``' `_modify`), until it ends.
    var valuesBeforeWrite: [Value]?

    init() { Self.made.store(true, ordering: .relaxed) }
}

import Foundation

/// What a managed object holds besides its entity: nothing yet (a new object), the batch whose fault it
/// is, or its whole state. One word, so that an object is 40 bytes (a 48-byte heap block) until it is
/// touched: a batched fetch of a million rows makes a million of these and nothing else per row.
enum ObjectBody {
    /// Made by `init(entity:insertInto:)` and not touched since: its state, when first needed, is a new
    /// object's (default values, no context).
    case fresh
    /// A fault of a batched fetch (`fetchBatchSize`), at ``NSManagedObject/batchIndex`` of the batch:
    /// persisted, in the batch's context, its key the batch's. Touching more than its key, context, life
    /// or fault state makes its ``ObjectState``.
    case batch(FaultBatch)
    /// Everything else.
    case full(ObjectState)
}

/// A managed object's state once it is more than a batch fault: identity, context, values, what it read,
/// and where it is in its life.
final class ObjectState {
    // The fields a read touches (the fault state, then the values) come first: with the object header
    // they share the block's first cache line, so a read of a loaded object misses once here, not twice.
    var faultState: FaultState
    /// Current values by slot; empty while the object is a fault whose values were never read.
    /// Unchecked exclusivity: no access to it overlaps another (none calls out while it holds the
    /// array), and the dynamic check cost a `@Managed` getter about as much as the read itself.
    @exclusivity(unchecked) var values: [Value]
    /// Made on first use for an object not saved yet (a temporary ID with ``temporaryKey``).
    var objectID: NSManagedObjectID?
    /// The key of a new object, given when it is first needed (its context registers it by this key);
    /// its ``objectID`` is made from it only when asked for, so an import makes no temporary ID objects.
    var temporaryKey: ObjectKey?
    weak var context: NSManagedObjectContext?
    /// Values as last read from or written to the store; `nil` for an object never saved.
    var snapshot: [Value]?
    /// The row version (`Z_OPT`) the snapshot was read at; 0 for an object never saved.
    var version: Int64 = 0
    /// The order in which its context inserted it (ties between unsaved objects sort by it).
    var insertionIndex = 0
    var lifecycle: Lifecycle
    var insertIsUnannounced = false

    init(objectID: NSManagedObjectID?, context: NSManagedObjectContext?, values: [Value], lifecycle: Lifecycle, faultState: FaultState) {
        self.objectID = objectID
        self.context = context
        self.values = values
        self.lifecycle = lifecycle
        self.faultState = faultState
    }
}

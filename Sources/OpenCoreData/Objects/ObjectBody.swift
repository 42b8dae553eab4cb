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
    /// Made on first use for objects created without a context (a temporary ID).
    var objectID: NSManagedObjectID?
    weak var context: NSManagedObjectContext?
    /// Current values by slot; empty while the object is a fault whose values were never read.
    /// Unchecked exclusivity: no access to it overlaps another (none calls out while it holds the
    /// array), and the dynamic check cost a `@Managed` getter about as much as the read itself.
    @exclusivity(unchecked) var values: [Value]
    /// Values as last read from or written to the store; `nil` for an object never saved.
    var snapshot: [Value]?
    /// The row version (`Z_OPT`) the snapshot was read at; 0 for an object never saved.
    var version: Int64 = 0
    /// The order in which its context inserted it (ties between unsaved objects sort by it).
    var insertionIndex = 0
    var lifecycle: Lifecycle
    var insertIsUnannounced = false
    var faultState: FaultState

    init(objectID: NSManagedObjectID?, context: NSManagedObjectContext?, values: [Value], lifecycle: Lifecycle, faultState: FaultState) {
        self.objectID = objectID
        self.context = context
        self.values = values
        self.lifecycle = lifecycle
        self.faultState = faultState
    }
}

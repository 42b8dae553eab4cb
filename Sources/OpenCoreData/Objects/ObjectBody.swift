import Foundation

/// What a managed object holds besides its entity: nothing yet (a new object), the batch whose fault it
/// is, or its state and values. Two words, so that an object is 40 bytes (a 48-byte heap block): a
/// batched fetch of a million rows makes a million of these and nothing else per row.
enum ObjectBody {
    /// Made by `init(entity:insertInto:)` and not touched since: its state, when first needed, is a new
    /// object's (default values, no context).
    case fresh
    /// A bare object at `index` of a batch: a fault of a fetch (batched, or holding its row), or a loaded
    /// prefetched object whose values and snapshot are the batch's row (``FaultBatch/isLoaded``); in the
    /// batch's context, its key the batch's. Touching more than its key, context, life, fault state or
    /// (loaded) values makes its ``ObjectState``; so does changing it.
    case batch(FaultBatch, index: Int)
    /// Everything else: the state, and the current values by slot, kept here rather than in the state so
    /// that reading a loaded object touches the object and its values, not its state (why: Benchmarks/README.md).
    /// The values are empty while the object is a fault; only a loaded object, or one whose row was gone
    /// (nils), holds any.
    case full(ObjectState, values: [Value])
}

/// A managed object's state once it is more than a batch fault: identity, context, what it read,
/// and where it is in its life.
final class ObjectState {
    /// Whether its values are here (they are in the object's ``ObjectBody``).
    var faultState: FaultState
    /// Made on first use from ``key`` (a new object's temporary ID, a fetched object's store ID); set
    /// when a save or a parent gives the object its store ID.
    var objectID: NSManagedObjectID?
    /// The key of ``objectID`` while the ID is not made: a new object's temporary key, given when first
    /// needed (its context registers it by this key), or a fetched object's store key. The ID is made
    /// from it only when asked for, so that an import makes no temporary ID objects and reading a fetched
    /// object's values makes no ID object.
    var key: ObjectKey?
    /// The identifier of the store ``key`` is a row of (`""` for a new object), for the ID made from it.
    var storeIdentifier = ""
    var context: NSManagedObjectContext? {
        get { weakContext.context }
        set { weakContext.context = newValue }
    }
    /// The reference behind ``context``, copied from its batch's as a weak reference (see ``WeakContext``).
    var weakContext: WeakContext
    /// Values as last read from or written to the store; `nil` for an object never saved.
    var snapshot: [Value]?
    /// The row version (`Z_OPT`) the snapshot was read at; 0 for an object never saved.
    var version: Int64 = 0
    /// The order in which its context inserted it (ties between unsaved objects sort by it).
    var insertionIndex = 0
    var lifecycle: Lifecycle
    var insertIsUnannounced = false
    /// What few objects need (observation info, pending `willChangeValue` calls, save marks), made on
    /// first use so that an object pays one word for it (see ``ObjectExtras``).
    var extras: ObjectExtras?
    /// The OpenSwiftData model whose values the object holds, while something keeps that model (here, not in
    /// the extras: every object a SwiftData context uses has one, and extras are a larger allocation). Released in
    /// `deinit`. (Unchecked exclusivity: its changes reach nothing else.)
    @exclusivity(unchecked) var swiftDataModel = SwiftDataModelLink.none

    /// Whether ``faultState`` is a fault: `FaultState.isFault`, read in place (why: Benchmarks/README.md).
    var isFault: Bool {
        switch faultState {
        case .loaded, .rowGone: return false
        case .fault, .holdingRow, .inBatch: return true
        }
    }

    deinit { swiftDataModel.release() }

    init(objectID: NSManagedObjectID?, context: NSManagedObjectContext?, lifecycle: Lifecycle, faultState: FaultState) {
        self.objectID = objectID
        self.weakContext = WeakContext(context: context)
        self.lifecycle = lifecycle
        self.faultState = faultState
    }

    /// The state of an object of a batch: its context the batch's, its ID made from `key` when asked for.
    init(key: ObjectKey, storeIdentifier: String, context: WeakContext, lifecycle: Lifecycle, faultState: FaultState) {
        self.key = key
        self.storeIdentifier = storeIdentifier
        self.weakContext = context
        self.lifecycle = lifecycle
        self.faultState = faultState
    }
}

/// A weak reference to a context, as a value: copying it copies the weak reference (one count on the
/// context's side table) where reading the context and referring to it again would retain and release it,
/// each on that table's slow path (a third of making a fetched object's state, profiled: Benchmarks/README.md,
/// "Issue 51 (session 32)").
struct WeakContext {
    weak var context: NSManagedObjectContext?
}

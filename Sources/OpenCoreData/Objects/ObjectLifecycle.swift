import Foundation

/// Where a managed object is in its life: one value, so that `isInserted`, `isDeleted` and the context's
/// inserted and deleted sets cannot disagree (the context keeps its sets by one function,
/// `NSManagedObjectContext.setLifecycle(_:of:)`).
enum Lifecycle: Equatable {
    /// Made without a context, or never inserted.
    case new
    /// Inserted in its context and not saved yet.
    case inserted
    /// A row of the store, registered in its context.
    case persisted
    /// A row of the store that its context will delete at the next save.
    case deleted
    /// No longer in its context because it was deleted: an insert deleted again, a saved delete, or a
    /// delete merged from another context. `isDeleted` stays true, as it did before the save.
    case removed
    /// Its context was reset: no longer usable.
    case detached
}

/// Whether a managed object's values are here: one value instead of separate flags, so that a fault
/// cannot both hold a row and belong to a batch.
enum FaultState {
    /// The values are in `values`.
    case loaded
    /// The fault fired but its row was gone (deleted elsewhere): Core Data raises "could not fulfill a
    /// fault"; the object holds nils and a save of changes to it reports the conflict.
    case rowGone
    /// A fault: firing it reads its row (from the row cache, or one query).
    case fault
    /// A fault that holds its row already (a fetch brought it, or a merge): firing it costs no query.
    case holdingRow([Value], version: Int64)
    /// A fault of a batched fetch (`fetchBatchSize`): firing it loads the rows of its whole batch.
    case inBatch(FaultBatch, index: Int)

    var isFault: Bool {
        switch self {
        case .loaded, .rowGone: return false
        case .fault, .holdingRow, .inBatch: return true
        }
    }

    /// The values are here and were read from a row.
    var isLoaded: Bool {
        if case .loaded = self { return true }
        return false
    }

    /// The fault fired on a row that was gone.
    var isRowGone: Bool {
        if case .rowGone = self { return true }
        return false
    }

    /// A fault that must read its row from the store (not one that holds it).
    var needsRow: Bool {
        switch self {
        case .fault, .inBatch: return true
        default: return false
        }
    }
}

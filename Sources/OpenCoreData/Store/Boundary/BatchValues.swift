import Foundation

// What batch requests hand a store and get back (``BatchRequestStore``).

/// A row a batch request wrote or deleted: its key and entity number.
package struct BatchRow: Hashable, Sendable {
    let root: Int
    let pk: Int64
    let entityID: Int
    var key: ObjectKey { .permanent(root: root, pk: pk) }
}

/// One attribute a batch update sets: a value (already of the attribute's type), or an expression the
/// store computes for each row.
package struct BatchAssignment {
    enum Source {
        case value(Value)
        case expression(ExpressionNode, NSAttributeType)
    }
    let slot: Int
    let source: Source
}

/// One object of a batch insert: its values by slot (defaults where not given) and the slots given.
package struct BatchInsertRow {
    let values: [Value]
    /// The slots given, in order (empty when the request needs them for nothing: no constraint to upsert
    /// by, no history to record).
    let given: [Int]
}

/// What a batch delete did: the rows it deleted (the matches, then the rows its cascade rules reached)
/// and the rows whose to-one pointing at a deleted row it set to nil (nullify rules).
package struct BatchDeleteOutcome {
    var deleted: [BatchRow] = []
    var nullified: [BatchRow] = []
}

/// The rows a batch delete starts from: a fetch's matches, or rows named by key (those that are gone
/// already are skipped).
package enum BatchDeleteTarget {
    case matching(FetchPlan)
    case keys(root: Int, pks: [Int64])
}

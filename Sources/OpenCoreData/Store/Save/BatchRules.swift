import Foundation

/// Which row of a batch insert writes each object, the same for every store: under the entity's
/// uniqueness constraints, an object sharing constrained values with an earlier one of the request goes
/// to that one's row (its values written over it), and the first of them matching a stored row
/// (`storedRow`) updates that row instead of inserting.
enum BatchInsertOwners {
    /// Each row's owner (its own index when it inserts or matches a stored row itself), and the stored
    /// row each owner updates, by index.
    static func find(_ rows: [BatchInsertRow], _ constraints: [UniquenessConstraint],
                     storedRow: (UniquenessConstraint, [Value]) throws -> BatchRow?) throws -> (owner: [Int], stored: [Int: BatchRow]) {
        var owner = Array(rows.indices)
        var stored: [Int: BatchRow] = [:]
        var taken: [[Value]: Int] = [:]
        for (i, row) in rows.enumerated() where !constraints.isEmpty {
            let keys = constraints.indices.map { [.int(Int64($0))] + constraints[$0].slots.map { row.values[$0] } }
            if let earlier = keys.lazy.compactMap({ taken[$0] }).first {
                owner[i] = owner[earlier]
            } else {
                for c in constraints {
                    if let match = try storedRow(c, c.slots.map { row.values[$0] }) { stored[i] = match; break }
                }
            }
            for key in keys where taken[key] == nil { taken[key] = i }
        }
        return (owner, stored)
    }
}

extension Array where Element == BatchAssignment {
    /// A row's values for a batch update's assigned slots (the others `nil`): each given value, and
    /// the computed expressions' values (`computed`, in the order of the expression assignments).
    func values(count: Int, computed: [Value]) -> [Value] {
        var values = [Value](repeating: .null, count: count)
        var next = 0
        for a in self {
            switch a.source {
            case .value(let v): values[a.slot] = v
            case .expression: values[a.slot] = computed[next]; next += 1
            }
        }
        return values
    }
}

import Foundation

// What persistent history is made of at the store boundary (``HistoryStore``).

/// Who wrote a transaction: the context's `transactionAuthor` and `name` (`nil` for a batch request run
/// on a coordinator without a context).
package struct HistoryOrigin: Sendable {
    var author: String?
    var contextName: String?
}

/// One object a transaction changed, as `ACHANGE` records it.
struct HistoryRecord {
    enum Kind: Int64 { case insert = 0, update = 1, delete = 2 }
    let kind: Kind
    let entityID: Int
    let pk: Int64
    /// An update's changed slots (`ZCOLUMNS`).
    var columns: [Int] = []
    /// A delete's preserved values, by tombstone column (see ``EntityLayout/historyTombstoneSlots``).
    var tombstone: [Value] = []
}

/// An `ATRANSACTION` row with its strings.
package struct HistoryTransactionRow: Sendable {
    let number: Int64
    let timestamp: Date
    let author: String?
    let bundleID: String?
    let contextName: String?
    let processID: String?
}

/// An `ACHANGE` row.
package struct HistoryChangeRow: Sendable {
    let id: Int64
    let kind: Int64
    let entityID: Int
    let pk: Int64
    let transaction: Int64
    let columns: [Int]?
    /// The tombstone columns' values, read as the deleted entity's preserved attributes.
    let tombstone: [Value]
}

/// Which transactions a history request reads or deletes.
package enum HistoryBound: Sendable {
    /// After a token's transaction: an error when the history after it was deleted.
    case afterToken(Int64)
    case afterNumber(Int64)
    case afterDate(Date)
    case throughNumber(Int64)
    case beforeNumber(Int64)
    case beforeDate(Date)
}

extension EntityLayout {
    /// The attributes whose values a delete keeps in its history change's tombstone
    /// (`preservesValueInHistoryOnDeletion`), in property order.
    var historyTombstoneSlots: [Int] {
        columnSlots.filter { attribute($0)?.preservesValueInHistoryOnDeletion == true }
    }
}

extension StoreChanges {
    /// The history of a save: its inserts (with the keys the store gave them), updates (the slots whose
    /// values changed) and deletes (with their tombstones).
    func historyRecords(_ outcome: StoreSaveOutcome, tombstones: [Int64: [Value]]) -> [HistoryRecord] {
        var records: [HistoryRecord] = []
        for (insert, pk) in zip(inserts, outcome.insertedPrimaryKeys) {
            records.append(HistoryRecord(kind: .insert, entityID: insert.layout.entityID, pk: pk))
        }
        for update in updates {
            let slots = update.layout.changedSlots(from: update.snapshot, to: update.values)
            records.append(HistoryRecord(kind: .update, entityID: update.layout.entityID, pk: update.key.primaryKey!, columns: slots))
        }
        for delete in deletes {
            let pk = delete.key.primaryKey!
            records.append(HistoryRecord(kind: .delete, entityID: delete.layout.entityID, pk: pk, tombstone: tombstones[pk] ?? []))
        }
        return records
    }
}

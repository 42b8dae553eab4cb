import Foundation

/// The save algorithm, the same for every store: keys reserved for the inserts, rows written in an order
/// unique indexes allow, updates and deletes checked against the version their object read (optimistic
/// locking, Core Data's `Z_OPT`), the rows that changed since collected as conflicts and handed to the
/// merge policy (`resolve`) inside the transaction, its decisions written. The store's ``StoreRowWriter``
/// does the writing, inside the store's transaction; a throw anywhere writes nothing.
enum StoreSave {
    static func apply<Writer: StoreRowWriter>(_ changes: StoreChanges, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution],
                                             _ writer: inout Writer) throws -> StoreSaveOutcome {
        var outcome = StoreSaveOutcome()
        outcome.insertedPrimaryKeys = try insertKeys(changes, &writer)
        // Only rows with relationships name other objects, by key.
        outcome.renaming = changes.renaming(outcome.insertedPrimaryKeys)
        let keys = KeyResolver(inserted: outcome.renaming)
        if !writer.insertsLast { try writeInserts(changes, outcome.insertedPrimaryKeys, keys, &writer) }
        var conflicts: [(StoreConflict, EntityLayout)] = []
        try writeUpdates(changes, keys, &writer, &outcome, &conflicts)
        try writeDeletes(changes, &writer, &outcome, &conflicts)
        if writer.insertsLast { try writeInserts(changes, outcome.insertedPrimaryKeys, keys, &writer) }
        if !conflicts.isEmpty {
            let decisions = try resolve(conflicts.map(\.0))
            for (conflict, layout) in conflicts {
                try settle(conflict, layout, decisions[conflict.key] ?? .keepStore, keys, &writer, &outcome)
            }
        }
        try writer.finish(&outcome)
        return outcome
    }

    /// The primary key of each insert, in order: its own when it has one (`obtainPermanentIDs`), else one
    /// reserved now, all before any row is written (a row may name another inserted object). A
    /// hierarchy's new rows take its reserved keys in insert order.
    private static func insertKeys<Writer: StoreRowWriter>(_ changes: StoreChanges, _ writer: inout Writer) throws -> [Int64] {
        var reserved = ReservedKeys()
        for insert in changes.inserts where insert.key?.primaryKey == nil { reserved.count(insert.layout.rootEntityID) }
        for i in reserved.hierarchies.indices {
            reserved.hierarchies[i].next = try writer.reserveKeys(root: reserved.hierarchies[i].root, count: reserved.hierarchies[i].count)
        }
        var pks: [Int64] = []
        pks.reserveCapacity(changes.inserts.count)
        for insert in changes.inserts { pks.append(insert.key?.primaryKey ?? reserved.take(insert.layout.rootEntityID)) }
        return pks
    }

    /// Every inserted row, then their relationships: an ordered to-many writes its members' positions into
    /// their rows, which an insert written later would reset.
    private static func writeInserts<Writer: StoreRowWriter>(_ changes: StoreChanges, _ pks: [Int64], _ keys: KeyResolver,
                                                             _ writer: inout Writer) throws {
        for (insert, pk) in zip(changes.inserts, pks) {
            try writer.insert(insert.layout, pk: pk, values: insert.values, version: 1, keys: keys)
        }
        for (insert, pk) in zip(changes.inserts, pks) where !insert.layout.relationshipSlots.isEmpty {
            try writer.writeRelationships(insert.layout, pk: pk, values: insert.values, old: nil, keys: keys)
        }
    }

    /// Each update writes the columns that changed since its object read the row, if the row is still at
    /// that version; otherwise it is a conflict, with the row as it is now.
    private static func writeUpdates<Writer: StoreRowWriter>(_ changes: StoreChanges, _ keys: KeyResolver, _ writer: inout Writer,
                                                             _ outcome: inout StoreSaveOutcome,
                                                             _ conflicts: inout [(StoreConflict, EntityLayout)]) throws {
        for update in changes.updates {
            let pk = update.key.primaryKey!, layout = update.layout
            let changed = layout.changedSlots(from: update.snapshot, to: update.values, among: layout.columnSlots)
            if try writer.update(layout, pk: pk, slots: changed, values: update.values, newVersion: update.version + 1,
                                 expected: update.version, keys: keys) {
                try writer.writeRelationships(layout, pk: pk, values: update.values, old: update.snapshot, keys: keys)
                outcome.rows[update.key] = StoreRow(pk: pk, entityID: layout.entityID, version: update.version + 1, values: update.values)
                continue
            }
            let current = try writer.currentRow(root: layout.rootEntityID, pk: pk)
            conflicts.append((StoreConflict(key: update.key, isDelete: false, current: current, objectVersion: update.version), layout))
        }
    }

    /// Each delete removes its row if it is still at the version its object read; a row gone already is no
    /// conflict, a row at another version is. The join rows of the deleted rows go after, per entity in one
    /// call (a store removes them by key lists, not row by row).
    private static func writeDeletes<Writer: StoreRowWriter>(_ changes: StoreChanges, _ writer: inout Writer, _ outcome: inout StoreSaveOutcome,
                                                             _ conflicts: inout [(StoreConflict, EntityLayout)]) throws {
        var gone: [(layout: EntityLayout, pks: [Int64])] = []
        func note(_ layout: EntityLayout, _ pk: Int64) {
            if let i = gone.lastIndex(where: { $0.layout === layout }) { gone[i].pks.append(pk) } else { gone.append((layout, [pk])) }
        }
        for delete in changes.deletes {
            let pk = delete.key.primaryKey!, layout = delete.layout
            guard try !writer.delete(layout, pk: pk, version: delete.version),
                  let current = try writer.currentRow(root: layout.rootEntityID, pk: pk) else {
                note(layout, pk)
                outcome.rows[delete.key] = .some(nil)
                continue
            }
            conflicts.append((StoreConflict(key: delete.key, isDelete: true, current: current, objectVersion: delete.version), layout))
        }
        for (layout, pks) in gone { try writer.deleteRelationships(layout, pks: pks) }
    }

    /// Writes what the merge policy decided for one conflict.
    private static func settle<Writer: StoreRowWriter>(_ conflict: StoreConflict, _ layout: EntityLayout, _ decision: ConflictResolution,
                                                       _ keys: KeyResolver, _ writer: inout Writer, _ outcome: inout StoreSaveOutcome) throws {
        let pk = conflict.key.primaryKey!
        switch decision {
        case .keepStore:
            outcome.rows[conflict.key] = .some(conflict.current)
        case .write(let values, let snapshot, let version):
            let slots = layout.changedSlots(from: snapshot, to: values, among: layout.columnSlots)
            guard try writer.update(layout, pk: pk, slots: slots, values: values, newVersion: version + 1, expected: version, keys: keys) else {
                throw CoreDataError(NSManagedObjectMergeError, "The merge policy resolved a conflict against row version \(version), which is not the store's.")
            }
            try writer.writeRelationships(layout, pk: pk, values: values, old: snapshot, keys: keys)
            outcome.rows[conflict.key] = StoreRow(pk: pk, entityID: layout.entityID, version: version + 1, values: values)
        case .reinsert(let values):
            try writer.insert(layout, pk: pk, values: values, version: conflict.objectVersion + 1, keys: keys)
            try writer.writeRelationships(layout, pk: pk, values: values, old: nil, keys: keys)
            outcome.rows[conflict.key] = StoreRow(pk: pk, entityID: layout.entityID, version: conflict.objectVersion + 1, values: values)
        case .delete(let version):
            _ = try writer.delete(layout, pk: pk, version: version)
            try writer.deleteRelationships(layout, pks: [pk])
            outcome.rows[conflict.key] = .some(nil)
        }
    }
}

/// The primary keys a save reserves, per hierarchy (root entity): how many, then the next one to give.
/// A save's inserts are mostly of one hierarchy, so a short list searched from the last one used.
private struct ReservedKeys {
    var hierarchies: [(root: Int, count: Int, next: Int64)] = []
    private var last = 0

    mutating func count(_ root: Int) {
        hierarchies[index(root)].count += 1
    }

    mutating func take(_ root: Int) -> Int64 {
        let i = index(root)
        defer { hierarchies[i].next += 1 }
        return hierarchies[i].next
    }

    private mutating func index(_ root: Int) -> Int {
        if last < hierarchies.count, hierarchies[last].root == root { return last }
        last = hierarchies.firstIndex { $0.root == root } ?? {
            hierarchies.append((root, 0, 0))
            return hierarchies.count - 1
        }()
        return last
    }
}

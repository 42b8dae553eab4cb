import Foundation

/// A save's changes sent to the stores that hold them: all of them to the only store, or split by
/// hierarchy among several stores, each store's write nested in the previous one's transaction so that
/// a store that fails rolls the others back.
extension NSPersistentStoreCoordinator {
    /// One store's share of a save: its changes, and where its inserts were in the whole save's.
    struct StoreShare {
        let store: NSPersistentStore
        var changes = StoreChanges()
        var insertPositions: [Int] = []
    }

    /// Writes the changes to their stores; returns the outcome (in the order of `changes.inserts`) and
    /// whether a store written keeps its rows in the row cache.
    /// `insertRoots` are the key roots of the stores the inserts go to (`nil`: each hierarchy's first store).
    func writeToStores(_ changes: StoreChanges, insertRoots: [Int]?, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution]) throws
        -> (outcome: StoreSaveOutcome, usesRowCache: Bool) {
        if let store = lock.withLock({ routes.onlyStore }) {
            try Self.checkWritable(store)
            return (try store.backend.save(changes, resolve: resolve), store.backend.usesRowCache)
        }
        guard !persistentStores.isEmpty else {
            throw CoreDataError(NSPersistentStoreSaveError, "This persistent store coordinator has no persistent stores: it cannot perform a save operation.")
        }
        let shares = try split(changes, insertRoots: insertRoots)
        for share in shares { try Self.checkWritable(share.store) }
        let outcomes = try withoutActuallyEscaping(resolve) { resolve in try saveNested(shares[...], resolve: resolve) }
        var outcome = StoreSaveOutcome()
        outcome.insertedPrimaryKeys = [Int64](repeating: 0, count: changes.inserts.count)
        for (share, var part) in zip(shares, outcomes) {
            let tag = share.store.keyTag
            if tag != 0 {
                part.renaming = part.renaming.mappingNewRoots { ObjectKey.keyRoot($0, tag: tag) }
                part.derivedRows = Dictionary(part.derivedRows.map { key, row in
                    guard case .permanent(let root, let pk) = key else { return (key, row) }
                    return (.permanent(root: ObjectKey.keyRoot(root, tag: tag), pk: pk), tagged(row, tag))
                }, uniquingKeysWith: { a, _ in a })
            }
            for (position, pk) in zip(share.insertPositions, part.insertedPrimaryKeys) { outcome.insertedPrimaryKeys[position] = pk }
            outcome.renaming = outcome.renaming.merging(part.renaming)
            outcome.rows.merge(part.rows) { a, _ in a }
            outcome.derivedRows.merge(part.derivedRows) { a, _ in a }
        }
        return (outcome, shares.contains { $0.store.backend.usesRowCache })
    }

    /// Each share's store writes inside the transaction of the share before it: the last commits first,
    /// and a failure anywhere rolls back every store not yet committed (all of them, unless a commit
    /// itself fails).
    /// A store with a tag hands its conflicts' current rows to the merge policy with the tag in their
    /// references, as every row the coordinator reads.
    private func saveNested(_ shares: ArraySlice<StoreShare>,
                            resolve: @escaping ([StoreConflict]) throws -> [ObjectKey: ConflictResolution]) throws -> [StoreSaveOutcome] {
        guard let first = shares.first else { return [] }
        var rest: [StoreSaveOutcome] = []
        var changes = first.changes
        changes.beforeCommit = { rest = try self.saveNested(shares.dropFirst(), resolve: resolve) }
        let tag = first.store.keyTag
        let resolveHere = tag == 0 ? resolve : { conflicts in
            try resolve(conflicts.map { c in
                StoreConflict(key: c.key, isDelete: c.isDelete, current: c.current.map { self.tagged($0, tag) }, objectVersion: c.objectVersion)
            })
        }
        let outcome = try first.store.backend.save(changes, resolve: resolveHere)
        return [outcome] + rest
    }

    /// The changes by store, in the order the stores were added (a store with nothing to write is
    /// left out, unless no store has anything: then the first, which writes pending metadata). SQLite
    /// stores come before custom ones, whose writes are not transactions, so that they are written last.
    private func split(_ changes: StoreChanges, insertRoots: [Int]?) throws -> [StoreShare] {
        var shares: [StoreShare] = []
        var shareOfRoot: [Int: Int] = [:]
        var storeOfInsert: [ObjectKey: NSPersistentStore] = [:]
        func share(_ root: Int) throws -> Int {
            if let index = shareOfRoot[root] { return index }
            let store = try store(root: root)
            let index = shares.firstIndex { $0.store === store } ?? { shares.append(StoreShare(store: store)); return shares.count - 1 }()
            shareOfRoot[root] = index
            return index
        }
        let roots = insertRoots ?? defaultKeyRoots(changes.inserts)
        let named = !changes.insertedObjects.isEmpty || !changes.updatedObjects.isEmpty || !changes.deletedObjects.isEmpty
        for (i, insert) in changes.inserts.enumerated() {
            let s = try share(roots[i])
            if let key = insert.key { storeOfInsert[key] = shares[s].store }
            shares[s].changes.inserts.append(insert)
            shares[s].insertPositions.append(i)
            if named { shares[s].changes.insertedObjects.append(changes.insertedObjects[i]) }
        }
        for (i, update) in changes.updates.enumerated() {
            let s = try share(Self.keyRoot(update.key, update.layout))
            shares[s].changes.updates.append(update)
            if named { shares[s].changes.updatedObjects.append(changes.updatedObjects[i]) }
        }
        for (i, delete) in changes.deletes.enumerated() {
            let s = try share(Self.keyRoot(delete.key, delete.layout))
            shares[s].changes.deletes.append(delete)
            if named { shares[s].changes.deletedObjects.append(changes.deletedObjects[i]) }
        }
        if shares.isEmpty, let first = persistentStores.first { shares.append(StoreShare(store: first)) }
        for s in shares.indices { shares[s].changes.origin = changes.origin }
        for share in shares { try checkReferences(share, storeOfInsert) }
        let order = persistentStores.enumerated().map { (ObjectIdentifier($0.element), $0.offset) }
        let position = Dictionary(order, uniquingKeysWith: { a, _ in a })
        return shares.sorted { a, b in
            let (customA, customB) = (a.store.backend.isTransactional ? 0 : 1, b.store.backend.isTransactional ? 0 : 1)
            return customA != customB ? customA < customB : position[ObjectIdentifier(a.store)]! < position[ObjectIdentifier(b.store)]!
        }
    }

    /// A relationship between objects of two stores cannot be saved (Core Data raises "Illegal attempt
    /// to establish a relationship … between objects in different stores"); here the save throws
    /// `NSPersistentStoreSaveError`, naming the relationship and both entities, and nothing is written.
    private func checkReferences(_ share: StoreShare, _ storeOfInsert: [ObjectKey: NSPersistentStore]) throws {
        let rows = share.changes.inserts.lazy.map { ($0.layout, $0.values) } + share.changes.updates.lazy.map { ($0.layout, $0.values) }
        for (layout, values) in rows where !layout.relationshipSlots.isEmpty {
            for slot in layout.relationshipSlots {
                let value = values[slot]
                for ref in value.objectRef.map({ [$0] }) ?? value.objectRefs {
                    guard let entity = managedObjectModel.entity(number: ref.entityID) else { continue }
                    let store: NSPersistentStore?
                    if case .permanent(let root, _) = ref.key { store = storeIfAny(root: root) } else { store = storeOfInsert[ref.key] ?? storeIfAny(root: defaultKeyRoot(entity.layout.rootEntityID)) }
                    guard store !== share.store else { continue }
                    let name = layout.properties[slot].name, owner = managedObjectModel.entity(number: layout.entityID)?.name ?? "?"
                    throw CoreDataError(NSPersistentStoreSaveError,
                                        "Illegal attempt to establish a relationship '\(name)' between objects in different stores: \(owner) is in the store at \(share.store.url?.path ?? "(in memory)"), \(entity.name ?? "?") in another; nothing was saved.",
                                        userInfo: [NSValidationKeyErrorKey: name])
                }
            }
        }
    }

    /// The key root of a saved object's key (its hierarchy's root when the key is temporary).
    private static func keyRoot(_ key: ObjectKey, _ layout: EntityLayout) -> Int {
        if case .permanent(let root, _) = key { return root }
        return layout.rootEntityID
    }

    /// A store set read-only after it was added refuses the save before anything is written.
    static func checkWritable(_ store: NSPersistentStore) throws {
        if store.isReadOnly, !store.backend.isReadOnly {
            throw CoreDataError(NSPersistentStoreSaveError, "cannot save: the store at \(store.url?.path ?? "?") was set read-only; nothing was written")
        }
    }
}

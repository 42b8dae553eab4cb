import Foundation

/// Rows and references read from a store whose tag is not 0 (see `StoreRoutes`) name their objects by
/// the stores's key roots: the store reads and writes primary keys and entity numbers, and the
/// coordinator puts the tag into the keys it hands to contexts.
extension NSPersistentStoreCoordinator {
    /// A reference with the store's tag in its key.
    static func tagged(_ ref: ObjectRef, _ tag: Int) -> ObjectRef {
        guard case .permanent(let root, let pk) = ref.key, ObjectKey.tag(root) == 0 else { return ref }
        return ObjectRef(key: .permanent(root: ObjectKey.keyRoot(root, tag: tag), pk: pk), entityID: ref.entityID)
    }

    /// A key with the store's tag in it.
    static func tagged(_ key: ObjectKey, _ tag: Int) -> ObjectKey {
        guard tag != 0, case .permanent(let root, let pk) = key, ObjectKey.tag(root) == 0 else { return key }
        return .permanent(root: ObjectKey.keyRoot(root, tag: tag), pk: pk)
    }

    /// A row whose references carry the store's tag.
    func tagged(_ row: StoreRow, _ tag: Int) -> StoreRow {
        guard let values = row.values, let layout = managedObjectModel.entity(number: row.entityID)?.layout else { return row }
        return StoreRow(pk: row.pk, entityID: row.entityID, version: row.version, values: Self.tagged(values, layout, tag))
    }

    /// Values whose references carry the store's tag.
    static func tagged(_ values: [Value], _ layout: EntityLayout, _ tag: Int) -> [Value] {
        guard layout.kinds.count == values.count else { return values }
        var values = values
        for slot in layout.relationshipSlots {
            if let ref = values[slot].objectRef {
                values[slot] = tagged(ref, tag).value
            } else if let members = values[slot].toManyMembers {
                values[slot] = ToManyMembers(members.refs.map { tagged($0, tag) }, ordered: members.isOrdered).value
            }
        }
        return values
    }

    /// The stores that hold a hierarchy (by its root entity number), in the order they were added.
    func storesHolding(_ root: Int) -> [NSPersistentStore] { lock.withLock { routes.stores(root: root) } }

    /// Whether some hierarchy is held by more than one store (overlapping configurations).
    var hasOverlappingStores: Bool { lock.withLock { routes.overlaps } }

    /// ``defaultKeyRoot(_:)`` of each insert's hierarchy, looked up once per hierarchy (a save inserts runs
    /// of one entity, often thousands of rows).
    func defaultKeyRoots(_ inserts: [StoreChanges.Insert]) -> [Int] {
        var known: [Int: Int] = [:]
        var last: (root: Int, keyRoot: Int)?
        return inserts.map { insert in
            let root = insert.layout.rootEntityID
            if let last, last.root == root { return last.keyRoot }
            let keyRoot = known[root] ?? defaultKeyRoot(root)
            known[root] = keyRoot
            last = (root, keyRoot)
            return keyRoot
        }
    }

    /// The key root of a hierarchy in its first store (where inserts go unless assigned elsewhere):
    /// the root entity number when no store or a store of tag 0 holds it first.
    func defaultKeyRoot(_ root: Int) -> Int {
        guard let first = storesHolding(root).first else { return root }
        return ObjectKey.keyRoot(root, tag: first.keyTag)
    }
}

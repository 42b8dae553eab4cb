import Foundation

extension AtomicStoreBackend {
    /// Writes the records of loaded cache nodes into the mirror as one insert per node. A relationship set
    /// on one side only (a to-many whose members' to-one is unset, say) is completed on the other, as
    /// the objects' inverse maintenance would have.
    func ingest(_ nodes: Set<NSAtomicStoreCacheNode>) throws {
        var rows: [ObjectKey: (layout: EntityLayout, values: [Value])] = [:]
        var order: [ObjectKey] = []
        for node in nodes.sorted(by: { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }) {
            guard let layout = node.objectID.entity.layout else {
                throw CoreDataError(NSPersistentStoreOperationError, "The cache node \(node.objectID) names an entity of no loaded model")
            }
            rows[node.objectID.key] = (layout, try Self.values(of: node, layout))
            order.append(node.objectID.key)
        }
        Self.completeInverses(&rows)
        var changes = StoreChanges()
        changes.inserts = order.map { key in StoreChanges.Insert(key: key, layout: rows[key]!.layout, values: rows[key]!.values) }
        guard !changes.isEmpty else { return }
        _ = try saveMirror(changes)
    }

    /// A node's values by storage slot: attributes converted as `setValue(_:forKey:)` converts them,
    /// relationships as references to the nodes (or object IDs) they hold.
    static func values(of node: NSAtomicStoreCacheNode, _ layout: EntityLayout) throws -> [Value] {
        var values = layout.defaultValues
        for slot in layout.persistentSlots {
            let name = layout.properties[slot].name
            let raw = node.value(forKey: name)
            if let r = layout.relationship(slot) {
                values[slot] = try relationshipValue(raw, r, node: node, key: name)
            } else if layout.attribute(slot)?.attributeType == .transformableAttributeType {
                values[slot] = TransformableValue.slotValue(raw)
            } else {
                values[slot] = raw.map { Value(any: $0) } ?? .null
            }
        }
        return values
    }

    private static func relationshipValue(_ raw: Any?, _ r: RelationshipLayout, node: NSAtomicStoreCacheNode, key: String) throws -> Value {
        func reference(_ member: Any) throws -> ObjectRef {
            let id: NSManagedObjectID
            switch member {
            case let n as NSAtomicStoreCacheNode: id = n.objectID
            case let i as NSManagedObjectID: id = i
            default:
                throw CoreDataError(NSPersistentStoreOperationError,
                                    "The cache node \(node.objectID) holds \(type(of: member)) under its relationship \"\(key)\"; relationships hold cache nodes")
            }
            return ObjectRef(key: id.key, entityID: id.entity.layout?.entityID ?? 0)
        }
        guard let raw, !(raw is NSNull) else { return r.isToMany ? ToManyMembers([], ordered: r.isOrdered).value : .null }
        guard r.isToMany else { return try reference(raw).value }
        let refs = try (NSManagedObject.toManyElements(raw) ?? [raw]).map(reference)
        return ToManyMembers(distinct: refs, ordered: r.isOrdered).value
    }

    /// Sets the inverse of every relationship value where the other node left it unset.
    private static func completeInverses(_ rows: inout [ObjectKey: (layout: EntityLayout, values: [Value])]) {
        for key in Array(rows.keys) {
            guard let row = rows[key] else { continue }
            let me = ObjectRef(key: key, entityID: row.layout.entityID)
            for slot in row.layout.relationshipSlots {
                guard let r = row.layout.relationship(slot), let inverse = r.inverseSlot else { continue }
                let value = row.values[slot]
                for member in r.isToMany ? value.objectRefs : [value.objectRef].compactMap({ $0 }) {
                    guard var other = rows[member.key], let back = other.layout.relationship(inverse) else { continue }
                    if !back.isToMany {
                        if other.values[inverse] == .null { other.values[inverse] = me.value }
                    } else if other.values[inverse].toManyMembers == nil {
                        other.values[inverse] = ToManyMembers([me], ordered: back.isOrdered).value
                    } else {
                        _ = other.values[inverse].insertReference(me, at: nil)
                    }
                    rows[member.key] = other
                }
            }
        }
    }
}

import Foundation
import OpenCoreData

/// An app's own atomic store, written against Core Data's documented `NSAtomicStore` contract: a JSON
/// file of records `{entity, id, values}`, relationships as the ids of their destinations. It counts the
/// framework's calls so that tests can check them, and can be told to fail its next `save()`.
final class JSONAtomicStore: NSAtomicStore, @unchecked Sendable {
    static let type = "JSONAtomicStore"
    nonisolated(unsafe) static var failNextSave = false
    private(set) var removedNodes = 0
    private(set) var updatedNodes = 0

    override func loadMetadata() throws {
        let file = try Self.read(url!)
        metadata = file?["metadata"] as? [String: Any] ?? [NSStoreTypeKey: Self.type, NSStoreUUIDKey: UUID().uuidString]
    }

    override func load() throws {
        guard let file = try Self.read(url!), let records = file["records"] as? [[String: Any]],
              let model = persistentStoreCoordinator?.managedObjectModel else { return }
        var nodes: [String: NSAtomicStoreCacheNode] = [:]
        for record in records {
            let entity = model.entitiesByName[record["entity"] as! String]!
            let id = record["id"] as! String
            nodes[id] = NSAtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: id))
        }
        for record in records {
            let node = nodes[record["id"] as! String]!
            for (key, value) in record["values"] as! [String: Any] {
                switch value {
                case let ref as [String: String]: node.setValue(ref["ref"].flatMap { nodes[$0] }, forKey: key)
                case let refs as [[String: String]]: node.setValue(Set(refs.compactMap { $0["ref"].flatMap { nodes[$0] } }), forKey: key)
                default: node.setValue(value, forKey: key)
                }
            }
        }
        addCacheNodes(Set(nodes.values))
    }

    override func newReferenceObject(for managedObject: NSManagedObject) -> Any { "r-\(UUID().uuidString)" }

    override func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        let node = NSAtomicStoreCacheNode(objectID: managedObject.objectID)
        copy(managedObject, into: node)
        return node
    }

    override func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        updatedNodes += 1
        copy(managedObject, into: node)
    }

    override func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) { removedNodes += cacheNodes.count }

    override func save() throws {
        if Self.failNextSave {
            Self.failNextSave = false
            throw NSError(domain: "JSONAtomicStore", code: 1, userInfo: [NSLocalizedDescriptionKey: "disk says no"])
        }
        let records = cacheNodes().map { node -> [String: Any] in
            var values: [String: Any] = [:]
            for (key, value) in node.propertyCache ?? [:] {
                switch value {
                case let id as NSManagedObjectID: values[key as! String] = ["ref": referenceObject(for: id) as! String]
                case let node as NSAtomicStoreCacheNode: values[key as! String] = ["ref": referenceObject(for: node.objectID) as! String]
                case let ids as Set<NSManagedObjectID>: values[key as! String] = ids.map { ["ref": referenceObject(for: $0) as! String] }
                case let nodes as Set<NSAtomicStoreCacheNode>:
                    values[key as! String] = nodes.map { ["ref": referenceObject(for: $0.objectID) as! String] }
                default: values[key as! String] = value
                }
            }
            return ["entity": node.objectID.entity.name!, "id": referenceObject(for: node.objectID) as! String, "values": values]
        }
        let data = try JSONSerialization.data(withJSONObject: ["metadata": metadata!, "records": records], options: [.sortedKeys])
        try data.write(to: url!, options: .atomic)
    }

    /// Attributes as JSON values; relationships as object IDs, turned into references when saved (the
    /// destinations' nodes may not exist yet while a save's new nodes are being made).
    private func copy(_ object: NSManagedObject, into node: NSAtomicStoreCacheNode) {
        for (name, property) in object.entity.propertiesByName {
            let value = object.value(forKey: name)
            if let relationship = property as? NSRelationshipDescription {
                if relationship.isToMany {
                    node.setValue(Set(((value as? NSSet)?.allObjects ?? []).map { ($0 as! NSManagedObject).objectID }), forKey: name)
                } else {
                    node.setValue((value as? NSManagedObject)?.objectID, forKey: name)
                }
            } else {
                node.setValue(value, forKey: name)
            }
        }
    }

    private static func read(_ url: URL) throws -> [String: Any]? {
        guard let data = try? Data(contentsOf: url), !data.isEmpty else { return nil }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}

import Foundation

/// Mirrors `NSBinaryStoreType`: Core Data's binary atomic store, a file read whole when the store is added
/// and written whole (to a temporary file, then renamed over the old one) on every save.
///
/// Core Data's own binary format is a private keyed archive; this store writes a binary property list of
/// its own (metadata, then one record per object: entity, reference, values), so files do not move between
/// the two. See docs/Store.md.
public let NSBinaryStoreType = "Binary"

extension NSPersistentStore.StoreType {
    /// Mirrors `NSPersistentStore.StoreType.binary` (``NSBinaryStoreType``).
    public static let binary = NSPersistentStore.StoreType(rawValue: NSBinaryStoreType)
}

/// The built-in store of ``NSBinaryStoreType``: an ``NSAtomicStore`` written with the public API, as an
/// app's own atomic store would be.
final class BinaryStore: NSAtomicStore, @unchecked Sendable {
    override func loadMetadata() throws {
        if let file = try BinaryStoreFile.read(at: url!) {
            metadata = file.metadata
        } else {
            metadata = [NSStoreTypeKey: NSBinaryStoreType, NSStoreUUIDKey: UUID().uuidString]
        }
    }

    override func load() throws {
        guard let url, let file = try BinaryStoreFile.read(at: url), let model = persistentStoreCoordinator?.managedObjectModel else { return }
        var nodes: [String: (NSAtomicStoreCacheNode, [String: Any])] = [:]
        for record in file.records {
            guard let entity = model.entitiesByName[record.entity] else {
                throw CoreDataError(NSPersistentStoreIncompatibleSchemaError, "\(url.path) holds objects of entity \(record.entity), which the model does not have")
            }
            nodes[record.reference] = (NSAtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: record.reference)), record.values)
        }
        for (node, values) in nodes.values {
            for property in node.objectID.entity.properties where !property.isTransient {
                guard let stored = values[property.name] else { continue }
                node.setValue(try BinaryStoreFile.decode(stored, property, nodes: { nodes[$0]?.0 }, path: url.path), forKey: property.name)
            }
        }
        addCacheNodes(Set(nodes.values.map(\.0)))
    }

    override func save() throws {
        guard let url else { return }
        let records = try cacheNodes().map { node in
            var values: [String: Any] = [:]
            for property in node.objectID.entity.properties where !property.isTransient {
                guard let value = node.value(forKey: property.name) else { continue }
                values[property.name] = try BinaryStoreFile.encode(value, property, reference: { self.referenceObject(for: $0) as? String })
            }
            return BinaryStoreFile.Record(entity: node.objectID.entity.name ?? "", reference: referenceObject(for: node.objectID) as? String ?? "", values: values)
        }
        try BinaryStoreFile(metadata: metadata ?? [:], records: records).write(to: url)
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        guard let file = try BinaryStoreFile.read(at: url) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no binary store at \(url.path).", userInfo: [NSFilePathErrorKey: url.path])
        }
        return file.metadata
    }

    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        guard var file = try BinaryStoreFile.read(at: url) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no binary store at \(url.path).", userInfo: [NSFilePathErrorKey: url.path])
        }
        file.metadata = metadata ?? [:]
        try file.write(to: url)
    }
}

import Foundation

/// Mirrors `NSBinaryStoreType`: Core Data's binary atomic store, a file read whole when the store is added
/// and written whole (to a temporary file, then renamed over the old one) on every save.
///
/// Core Data's own binary format is a private keyed archive; this store writes a binary property list of
/// its own (metadata, then one record per object: entity, reference, values), so files do not move between
/// the two. See docs/Store.md.
public let NSBinaryStoreType = "Binary"

/// Mirrors `NSXMLStoreType`: Core Data's XML atomic store (macOS only on Apple platforms), here on every
/// platform: the same store as ``NSBinaryStoreType`` written as an XML property list, readable and
/// diffable. Core Data's own XML format is its own; files do not move between the two (docs/Store.md).
public let NSXMLStoreType = "XML"

/// Mirrors `NSValidateXMLStoreOption`: Core Data checks an XML store against its DTD when it loads. The XML
/// store here always checks the file's structure (metadata, records, property-list values) when it loads
/// and refuses a file that does not hold one, with or without the option.
public let NSValidateXMLStoreOption = "NSValidateXMLStoreOption"

extension NSPersistentStore.StoreType {
    /// Mirrors `NSPersistentStore.StoreType.binary` (``NSBinaryStoreType``).
    public static let binary = NSPersistentStore.StoreType(rawValue: NSBinaryStoreType)
    /// Mirrors `NSPersistentStore.StoreType.xml` (``NSXMLStoreType``).
    public static let xml = NSPersistentStore.StoreType(rawValue: NSXMLStoreType)
}

/// The built-in store of ``NSBinaryStoreType``.
final class BinaryStore: PropertyListStore, @unchecked Sendable {
    override class var kind: PropertyListStoreFile.Kind { .binary }
}

/// The built-in store of ``NSXMLStoreType``.
final class XMLStore: PropertyListStore, @unchecked Sendable {
    override class var kind: PropertyListStoreFile.Kind { .xml }
}

/// The built-in property-list stores: ``NSAtomicStore``s written with the public API, as an app's own
/// atomic store would be.
class PropertyListStore: NSAtomicStore, @unchecked Sendable {
    class var kind: PropertyListStoreFile.Kind { .binary }

    override func loadMetadata() throws {
        if let file = try PropertyListStoreFile.read(at: url!, Self.kind) {
            metadata = file.metadata
        } else {
            metadata = [NSStoreTypeKey: Self.kind.storeType, NSStoreUUIDKey: UUID().uuidString]
            if let model = persistentStoreCoordinator?.managedObjectModel {
                // The model's version hashes, so that opening the file with another model is refused.
                metadata[NSStoreModelVersionHashesKey] = model.entityVersionHashesByName
                metadata[storeModelVersionHashesVersionKey] = 3
            }
        }
    }

    /// Reads the file's records; a store added at a new URL writes its file now (its metadata, no
    /// records), as Core Data does, unless it is read-only.
    override func load() throws {
        guard let url else { return }
        guard let file = try PropertyListStoreFile.read(at: url, Self.kind) else {
            if !isReadOnly { try PropertyListStoreFile(metadata: metadata ?? [:], records: []).write(to: url, Self.kind) }
            return
        }
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
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
                node.setValue(try PropertyListStoreFile.decode(stored, property, nodes: { nodes[$0]?.0 }, path: url.path), forKey: property.name)
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
                values[property.name] = try PropertyListStoreFile.encode(value, property, reference: { self.referenceObject(for: $0) as? String })
            }
            return PropertyListStoreFile.Record(entity: node.objectID.entity.name ?? "", reference: referenceObject(for: node.objectID) as? String ?? "", values: values)
        }
        try PropertyListStoreFile(metadata: metadata ?? [:], records: records).write(to: url, Self.kind)
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        guard let file = try PropertyListStoreFile.read(at: url, kind) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no \(kind.name) store at \(url.path).", userInfo: [NSFilePathErrorKey: url.path])
        }
        return file.metadata
    }

    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        guard var file = try PropertyListStoreFile.read(at: url, kind) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no \(kind.name) store at \(url.path).", userInfo: [NSFilePathErrorKey: url.path])
        }
        file.metadata = metadata ?? [:]
        try file.write(to: url, kind)
    }
}

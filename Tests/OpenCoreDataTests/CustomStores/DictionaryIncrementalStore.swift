import Foundation
@testable import OpenCoreData

/// An app's incremental store: records in a "server" per URL (kept for the process, so a new coordinator
/// at the same URL reads what an earlier one saved). It answers fetches itself: each record is made into a
/// dictionary (attributes; relationships as dictionaries of their destinations, two levels deep) on which
/// the request's predicate is evaluated and by which its sort descriptors sort. Nodes hold attributes only:
/// every relationship is asked of `newValue(forRelationship:forObjectWith:with:)`.
final class DictionaryIncrementalStore: NSIncrementalStore, @unchecked Sendable {
    static let type = "DictionaryIncrementalStore"

    struct Record {
        var entity: String
        /// Attributes by name; relationships as reference strings (to-one) or arrays of them (to-many).
        var values: [String: Any]
        var version: UInt64
    }

    final class Server: @unchecked Sendable {
        let uuid = DictionaryIncrementalStore.identifierForNewStore(at: URL(fileURLWithPath: "/")) as! String
        var records: [String: Record] = [:]
        var failSaves = false
    }

    nonisolated(unsafe) private static var servers: [URL: Server] = [:]
    private static let lock = NSLock()
    static func server(at url: URL) -> Server {
        lock.withLock {
            if let server = servers[url] { return server }
            let server = Server()
            servers[url] = server
            return server
        }
    }

    private(set) var server: Server!
    private(set) var nodeReads = 0
    private(set) var relationshipReads = 0
    private(set) var fetches: [NSFetchRequest<NSFetchRequestResult>] = []
    private(set) var contexts: [NSManagedObjectContext?] = []
    /// The contexts handed to `newValuesForObject(with:with:)` and `newValue(forRelationship:forObjectWith:with:)`.
    private(set) var readingContexts: [NSManagedObjectContext?] = []
    private(set) var saves = 0
    /// The last save request the store executed.
    private(set) var lastSave: NSSaveChangesRequest?

    override func loadMetadata() throws {
        server = Self.server(at: url!)
        metadata = [NSStoreTypeKey: Self.type, NSStoreUUIDKey: server.uuid]
    }

    private var model: NSManagedObjectModel { persistentStoreCoordinator!.managedObjectModel }

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        contexts.append(context)
        if let save = request as? NSSaveChangesRequest {
            lastSave = save
            try apply(save)
            return [Any]()
        }
        guard let fetch = request as? NSFetchRequest<NSFetchRequestResult> else {
            throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError, "unsupported request \(request.requestType)")
        }
        fetches.append(fetch)
        var matches = server.records.filter { $0.value.entity == fetch.entityName }.map { dictionary(of: $0.key, depth: 2) }
        if let predicate = fetch.predicate { matches = matches.filter { predicate.evaluate(with: $0) } }
        matches = matches.sorted { ($0["ref"] as! String) < ($1["ref"] as! String) }.sorted(using: fetch.sortDescriptors ?? [])
        matches = Array(matches.dropFirst(fetch.fetchOffset))
        if fetch.fetchLimit > 0 { matches = Array(matches.prefix(fetch.fetchLimit)) }
        let ids = matches.map { id(of: $0["ref"] as! String) }
        switch fetch.resultType {
        case .countResultType: return [NSNumber(value: ids.count)]
        case .managedObjectIDResultType: return ids
        case .managedObjectResultType: return ids.map { context!.object(with: $0) }
        default: return matches
        }
    }

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        nodeReads += 1
        readingContexts.append(context)
        guard let record = server.records[referenceObject(for: objectID) as! String] else {
            throw CoreDataError(NSManagedObjectReferentialIntegrityError, "no record for \(objectID)")
        }
        let attributes = model.entitiesByName[record.entity]!.attributesByName.keys
        return NSIncrementalStoreNode(objectID: objectID, withValues: record.values.filter { attributes.contains($0.key) }, version: record.version)
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                           with context: NSManagedObjectContext?) throws -> Any {
        relationshipReads += 1
        readingContexts.append(context)
        let value = server.records[referenceObject(for: objectID) as! String]?.values[relationship.name]
        if relationship.isToMany { return ((value as? [String]) ?? []).map(id(of:)) }
        return (value as? String).map { id(of: $0) as Any } ?? NSNull()
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        array.map { newObjectID(for: $0.entity, referenceObject: "\($0.entity.name!)-\(UUID().uuidString)") }
    }

    /// The ID of a record.
    func id(of ref: String) -> NSManagedObjectID {
        newObjectID(for: model.entitiesByName[server.records[ref]!.entity]!, referenceObject: ref)
    }

    /// A record as a dictionary for predicates and sorts: relationships hold their destinations' dictionaries.
    private func dictionary(of ref: String, depth: Int) -> [String: Any] {
        let record = server.records[ref]!
        var result: [String: Any] = ["ref": ref]
        for (key, value) in record.values {
            switch value {
            case let destination as String where model.entitiesByName[record.entity]!.relationshipsByName[key] != nil:
                if depth > 0 { result[key] = dictionary(of: destination, depth: depth - 1) }
            case let members as [String]:
                if depth > 0 { result[key] = members.map { dictionary(of: $0, depth: depth - 1) } }
            default:
                result[key] = value
            }
        }
        return result
    }

    /// Writes a save: all of it, or (the server failing) nothing.
    private func apply(_ save: NSSaveChangesRequest) throws {
        if server.failSaves { throw CoreDataError(NSPersistentStoreSaveError, "the server refused the save") }
        var records = server.records
        for object in save.insertedObjects ?? [] {
            records[referenceObject(for: object.objectID) as! String] = Record(entity: object.entity.name!, values: values(of: object), version: 1)
        }
        for object in save.updatedObjects ?? [] {
            let ref = referenceObject(for: object.objectID) as! String
            records[ref] = Record(entity: object.entity.name!, values: values(of: object), version: (records[ref]?.version ?? 0) + 1)
        }
        for object in save.deletedObjects ?? [] { records[referenceObject(for: object.objectID) as! String] = nil }
        server.records = records
        saves += 1
    }

    private func values(of object: NSManagedObject) -> [String: Any] {
        var values: [String: Any] = [:]
        for (name, _) in object.entity.attributesByName {
            if let value = object.value(forKey: name) { values[name] = value }
        }
        for (name, relationship) in object.entity.relationshipsByName {
            if relationship.isToMany {
                let value = object.value(forKey: name)
                let members = (value as? NSSet)?.allObjects.compactMap { $0 as? NSManagedObject } ?? (value as? Set<NSManagedObject>).map(Array.init) ?? []
                values[name] = members.map { referenceObject(for: $0.objectID) as! String }.sorted()
            } else if let destination = object.value(forKey: name) as? NSManagedObject {
                values[name] = referenceObject(for: destination.objectID) as! String
            }
        }
        return values
    }
}

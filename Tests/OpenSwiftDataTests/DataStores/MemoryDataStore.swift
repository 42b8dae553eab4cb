import Foundation
import OpenSwiftData

/// A snapshot type of a store's own: it wraps ``DefaultSnapshot``'s `Codable` form (as the bridge reads
/// snapshots) and counts how often it was made.
struct TaggedSnapshot: DataStoreSnapshot {
    let base: DefaultSnapshot
    var persistentIdentifier: PersistentIdentifier { base.persistentIdentifier }

    init(_ base: DefaultSnapshot) { self.base = base }
    init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData]) {
        base = DefaultSnapshot(from: backingData, relatedBackingDatas: &relatedBackingDatas)
    }
    init(from decoder: any Decoder) throws { base = try DefaultSnapshot(from: decoder) }
    func encode(to encoder: any Encoder) throws { try base.encode(to: encoder) }
    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> TaggedSnapshot {
        TaggedSnapshot(base.copy(persistentIdentifier: persistentIdentifier, remappedIdentifiers: remappedIdentifiers))
    }
}

/// A store in memory with its own snapshot type and integer keys, which rewrites what it saves as a server
/// would (it trims the `name` of every saved model) and says so through `snapshotsToReregister`.
final class MemoryDataStore: DataStore, @unchecked Sendable {
    typealias Configuration = MemoryDataConfiguration
    typealias Snapshot = TaggedSnapshot

    let configuration: MemoryDataConfiguration
    let identifier = "memory-\(UUID().uuidString)"
    var schema: Schema { configuration.schema! }
    private var rows: [PersistentIdentifier: TaggedSnapshot] = [:]
    private var nextKey = 1

    init(_ configuration: MemoryDataConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
    }

    private func matching<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [TaggedSnapshot] {
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        let name = Schema.entityName(for: T.self)
        return rows.values.filter { $0.persistentIdentifier.entityName == name }.sorted { $0.persistentIdentifier < $1.persistentIdentifier }
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, TaggedSnapshot> {
        DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: try matching(request), relatedSnapshots: [:])
    }
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int { try matching(request).count }
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try matching(request).map(\.persistentIdentifier)
    }

    func save(_ request: DataStoreSaveChangesRequest<TaggedSnapshot>) throws -> DataStoreSaveChangesResult<TaggedSnapshot> {
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            remapped[snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: nextKey)
            nextKey += 1
        }
        var reregister: [PersistentIdentifier: TaggedSnapshot] = [:]
        for snapshot in request.inserted + request.updated {
            let id = remapped[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier
            let stored = try trimmed(snapshot.copy(persistentIdentifier: id, remappedIdentifiers: remapped))
            if try JSONEncoder().encode(stored) != JSONEncoder().encode(snapshot.copy(persistentIdentifier: id, remappedIdentifiers: remapped)) {
                reregister[id] = stored
            }
            rows[id] = stored
        }
        for snapshot in request.deleted { rows[snapshot.persistentIdentifier] = nil }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped, snapshotsToReregister: reregister)
    }

    /// The snapshot with its `name` trimmed (through the Codable form, as a server would see it).
    private func trimmed(_ snapshot: TaggedSnapshot) throws -> TaggedSnapshot {
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as! [String: Any]
        if var name = object["name"] as? [String: Any], let text = name["string"] as? String {
            name["string"] = text.trimmingCharacters(in: .whitespaces)
            object["name"] = name
        }
        return try JSONDecoder().decode(TaggedSnapshot.self, from: JSONSerialization.data(withJSONObject: object))
    }

    func erase() throws { rows = [:] }
    func initializeState(for editingState: EditingState) {}
    func invalidateState(for editingState: EditingState) {}
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: TaggedSnapshot] {
        var found: [PersistentIdentifier: TaggedSnapshot] = [:]
        for id in persistentIdentifiers { found[id] = rows[id] }
        return found
    }
}

struct MemoryDataConfiguration: DataStoreConfiguration {
    typealias Store = MemoryDataStore
    var name = "Memory"
    var schema: Schema?
    func validate() throws {}
    static func == (lhs: MemoryDataConfiguration, rhs: MemoryDataConfiguration) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

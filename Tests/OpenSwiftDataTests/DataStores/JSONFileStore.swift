import Foundation
import OpenSwiftData

/// A custom store as an app writes one (the shape of Apple's "custom data store" sample, written anew): a
/// JSON file of ``DefaultSnapshot``s, read whole for every request, written whole (atomically) by every save.
/// It neither filters nor sorts: it asks for both in memory. It records the calls it gets.
final class JSONFileStore: DataStore, @unchecked Sendable {
    typealias Configuration = JSONFileConfiguration
    typealias Snapshot = DefaultSnapshot

    let configuration: JSONFileConfiguration
    let identifier: String
    var schema: Schema { configuration.schema! }
    private let lock = NSLock()
    private(set) var calls: [String] = []
    /// When set, the next save throws this (after reading, before writing).
    var failNextSave: Error?

    init(_ configuration: JSONFileConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        identifier = configuration.fileURL.lastPathComponent
        configuration.opened.store = self
    }

    private func note(_ call: String) { lock.withLock { calls.append(call) } }

    func read() throws -> [PersistentIdentifier: DefaultSnapshot] {
        guard FileManager.default.fileExists(atPath: configuration.fileURL.path) else { return [:] }
        let snapshots = try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: configuration.fileURL))
        return Dictionary(snapshots.map { ($0.persistentIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
    }

    private func write(_ snapshots: [PersistentIdentifier: DefaultSnapshot]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(snapshots.values.sorted { $0.persistentIdentifier < $1.persistentIdentifier }).write(to: configuration.fileURL, options: .atomic)
    }

    private func snapshots<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [DefaultSnapshot] {
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        let name = Schema.entityName(for: T.self)
        let all = try read().values.filter { $0.persistentIdentifier.entityName == name }.sorted { $0.persistentIdentifier < $1.persistentIdentifier }
        let start = min(request.descriptor.fetchOffset ?? 0, all.count)
        let end = request.descriptor.fetchLimit.map { min(start + $0, all.count) } ?? all.count
        return Array(all[start..<end])
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        note("fetch \(T.self)")
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: try snapshots(request), relatedSnapshots: [:])
    }

    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        note("fetchCount \(T.self)")
        return try snapshots(request).count
    }

    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        note("fetchIdentifiers \(T.self)")
        return try snapshots(request).map(\.persistentIdentifier)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        note("save \(request.inserted.count)/\(request.updated.count)/\(request.deleted.count)")
        var stored = try read()
        if let failure = failNextSave {
            failNextSave = nil
            throw failure
        }
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            remapped[snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(
                for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
        }
        for snapshot in request.inserted {
            let permanent = remapped[snapshot.persistentIdentifier]!
            stored[permanent] = snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped)
        }
        for snapshot in request.updated {
            guard stored[snapshot.persistentIdentifier] != nil else { throw DataStoreError.unsupportedFeature }
            stored[snapshot.persistentIdentifier] = snapshot.copy(persistentIdentifier: snapshot.persistentIdentifier, remappedIdentifiers: remapped)
        }
        for snapshot in request.deleted { stored[snapshot.persistentIdentifier] = nil }
        try write(stored)
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }

    func erase() throws {
        note("erase")
        try? FileManager.default.removeItem(at: configuration.fileURL)
    }

    func initializeState(for editingState: EditingState) { note("initializeState") }

    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        note("cachedSnapshots")
        return [:]
    }

    func invalidateState(for editingState: EditingState) { note("invalidateState") }
}

/// The configuration of a ``JSONFileStore``: a file and the schema it holds.
final class JSONFileConfiguration: DataStoreConfiguration, @unchecked Sendable {
    typealias Store = JSONFileStore
    let name: String
    var schema: Schema?
    let fileURL: URL
    /// The store the container opened, for the tests to look at.
    let opened = Opened()

    final class Opened: @unchecked Sendable { weak var store: JSONFileStore? }

    init(name: String = "JSON", schema: Schema? = nil, fileURL: URL) {
        (self.name, self.schema, self.fileURL) = (name, schema, fileURL)
    }

    func validate() throws {
        guard fileURL.isFileURL else { throw DataStoreError.unsupportedFeature }
    }

    static func == (lhs: JSONFileConfiguration, rhs: JSONFileConfiguration) -> Bool { lhs.name == rhs.name && lhs.fileURL == rhs.fileURL }
    func hash(into hasher: inout Hasher) { hasher.combine(name); hasher.combine(fileURL) }
}

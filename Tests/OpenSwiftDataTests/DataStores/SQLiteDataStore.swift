import Foundation
import OpenSwiftData

/// A custom store that keeps its models in an SQLite file through ``DefaultStore``: it filters, sorts and
/// batch-deletes itself, so a container using it exercises the store-side paths of the data store bridge.
final class SQLiteDataStore: DataStoreBatching, HistoryProviding, @unchecked Sendable {
    typealias Configuration = SQLiteDataConfiguration
    typealias Snapshot = DefaultSnapshot

    let configuration: SQLiteDataConfiguration
    let inner: DefaultStore
    var identifier: String { inner.identifier }
    var schema: Schema { inner.schema }
    private(set) var batchDeletes = 0
    /// Fetches that came with a predicate (the bridge hands the store the descriptor's).
    private(set) var filteredFetches = 0

    init(_ configuration: SQLiteDataConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        inner = try DefaultStore(ModelConfiguration(configuration.name, schema: configuration.schema, url: configuration.url), migrationPlan: migrationPlan)
        configuration.opened.store = self
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        if request.descriptor.predicate != nil { filteredFetches += 1 }
        return try inner.fetch(request)
    }
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int { try inner.fetchCount(request) }
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] { try inner.fetchIdentifiers(request) }
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> { try inner.save(request) }
    func erase() throws { try inner.erase() }
    func initializeState(for editingState: EditingState) { inner.initializeState(for: editingState) }
    func invalidateState(for editingState: EditingState) { inner.invalidateState(for: editingState) }
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        try inner.cachedSnapshots(for: persistentIdentifiers, editingState: editingState)
    }
    static var historyType: DefaultHistoryTransaction.Type { DefaultHistoryTransaction.self }
    func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] { try inner.fetchHistory(descriptor) }
    func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws { try inner.deleteHistory(descriptor) }
    /// The editing states of the batch deletes it was handed.
    private(set) var batchDeleteStates: [EditingState] = []

    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        batchDeletes += 1
        batchDeleteStates.append(request.editingState)
        try inner.delete(request)
    }
}

/// The configuration of an ``SQLiteDataStore``.
final class SQLiteDataConfiguration: DataStoreConfiguration, @unchecked Sendable {
    typealias Store = SQLiteDataStore
    let name: String
    var schema: Schema?
    let url: URL
    let opened = Opened()

    final class Opened: @unchecked Sendable { weak var store: SQLiteDataStore? }

    init(name: String = "SQLiteData", schema: Schema, url: URL) { (self.name, self.schema, self.url) = (name, schema, url) }
    func validate() throws {}
    static func == (lhs: SQLiteDataConfiguration, rhs: SQLiteDataConfiguration) -> Bool { lhs.name == rhs.name && lhs.url == rhs.url }
    func hash(into hasher: inout Hasher) { hasher.combine(name); hasher.combine(url) }
}

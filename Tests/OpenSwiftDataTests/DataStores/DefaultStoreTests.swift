import Foundation
@testable import OpenSwiftData
@testable import trips
import Testing

/// `DefaultStore`, the built-in store as a `DataStore`, driven through the protocol as a store that wraps
/// it does; and `DefaultSnapshot`'s forms.
@Suite struct DefaultStoreTests {
    static var schema: Schema { Schema([Trip.self, BucketListItem.self, LivingAccommodation.self]) }

    func store(_ url: URL = temporaryStoreURL()) throws -> DefaultStore {
        try DefaultStore(ModelConfiguration(schema: Self.schema, url: url), migrationPlan: nil)
    }

    /// Snapshots of new models, made from detached models as SwiftData makes a save request's.
    func snapshots(of trip: Trip) -> [DefaultSnapshot] {
        var related: [PersistentIdentifier: any BackingData] = [:]
        let first = DefaultSnapshot(from: trip.persistentBackingData, relatedBackingDatas: &related)
        return [first] + related.values.map { backing in
            var more: [PersistentIdentifier: any BackingData] = [:]
            return DefaultSnapshot(from: backing, relatedBackingDatas: &more)
        }
    }

    @Test func savedSnapshotsGetPermanentIdentifiersAndFetchBack() throws {
        let store = try store()
        let state = ModelContext(try ModelContainer(for: Self.schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])).editingState
        let trip = Trip(name: "Paris", destination: "France")
        trip.bucketList = [BucketListItem(title: "Louvre", details: "Art", hasReservation: true, isInPlan: true)]
        let new = snapshots(of: trip)
        #expect(new.count == 2)
        let result = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: new, updated: [], deleted: []))
        #expect(result.storeIdentifier == store.identifier)
        #expect(result.remappedIdentifiers.count == 2)
        #expect(result.remappedIdentifiers.values.allSatisfy { $0.storeIdentifier == store.identifier })
        let request = DataStoreFetchRequest(descriptor: FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" }), editingState: state)
        let fetched = try store.fetch(request)
        #expect(fetched.descriptor.predicate != nil)
        #expect(store.name == store.configuration.name)
        #expect(store.schema.entities.map(\.name).sorted() == ["BucketListItem", "LivingAccommodation", "Trip"])
        let tripID = try #require(result.remappedIdentifiers[new[0].persistentIdentifier])
        #expect(fetched.fetchedSnapshots.map(\.persistentIdentifier) == [tripID])
        #expect(try store.fetchCount(request) == 1)
        #expect(try store.fetchIdentifiers(request) == [tripID])
        let items = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<BucketListItem>(), editingState: state))
        #expect(items.relatedSnapshots.keys.contains(tripID))  // the item's trip
        // The editing state's context holds what it fetched.
        #expect(try store.cachedSnapshots(for: [tripID], editingState: state)[tripID] != nil)
        store.invalidateState(for: state)
        #expect(try store.cachedSnapshots(for: [tripID], editingState: state).isEmpty)
    }

    @Test func updatesDeletesAndAFailedSaveThatWritesNothing() throws {
        let url = temporaryStoreURL()
        let store = try store(url)
        let state = EditingStateSource().state
        let inserted = snapshots(of: Trip(name: "Paris", destination: "France"))
        let result = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: inserted, updated: [], deleted: []))
        let id = try #require(result.remappedIdentifiers[inserted[0].persistentIdentifier])
        let all = DataStoreFetchRequest(descriptor: FetchDescriptor<Trip>(), editingState: state)
        let stored = try #require(try store.fetch(all).fetchedSnapshots.first)
        // A save naming an object the store does not have fails whole.
        let ghost = try PersistentIdentifier.identifier(for: store.identifier, entityName: "Trip", primaryKey: 999)
        let renamed = stored.copy(persistentIdentifier: id, remappedIdentifiers: nil)
        #expect(throws: (any Error).self) {
            try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: [], updated: [renamed, stored.copy(persistentIdentifier: ghost, remappedIdentifiers: nil)], deleted: []))
        }
        #expect(try store.fetchCount(all) == 1)
        _ = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: [], updated: [], deleted: [stored]))
        #expect(try store.fetchCount(all) == 0)
        _ = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: snapshots(of: Trip(name: "Rome", destination: "Italy")), updated: [], deleted: []))
        try store.delete(DataStoreBatchDeleteRequest(editingState: state, predicate: #Predicate<Trip> { $0.destination == "Italy" }, includeSubclasses: true))
        #expect(try store.fetchCount(all) == 0)
        _ = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: snapshots(of: Trip(name: "Oslo", destination: "Norway")), updated: [], deleted: []))
        try store.erase()
        #expect(try store.fetchCount(all) == 0)
    }

    @Test func historyOfTheStoresSaves() throws {
        let store = try store()
        let state = EditingStateSource(author: "importer").state
        _ = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: snapshots(of: Trip(name: "Paris", destination: "France")), updated: [], deleted: []))
        #expect(DefaultStore.historyType == DefaultHistoryTransaction.self)
        let history = try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 1)
        #expect(history.first?.author == "importer")
        try store.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
    }

    @Test func aConfigurationWithoutSchemaIsRefused() {
        #expect(throws: SwiftDataError.unknownDataStoreSchema) { try DefaultStore(ModelConfiguration(isStoredInMemoryOnly: true), migrationPlan: nil) }
    }

    @Test func snapshotsCodeAsTaggedValuesAndRemapTheirReferences() throws {
        let container = try ModelContainer(for: Self.schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let trip = Trip(name: "Paris", destination: "France", startDate: Date(timeIntervalSince1970: 0))
        let item = BucketListItem(title: "Louvre", details: "Art", hasReservation: true, isInPlan: false)
        trip.bucketList = [item]
        context.insert(trip)
        try context.save()
        var related: [PersistentIdentifier: any BackingData] = [:]
        let snapshot = DefaultSnapshot(from: item.persistentBackingData, relatedBackingDatas: &related)
        #expect(snapshot.persistentIdentifier == item.persistentModelID)
        #expect(related.keys.map { $0 } == [trip.persistentModelID])
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as! [String: Any]
        #expect((json["title"] as? [String: Any])?["string"] as? String == "Louvre")
        #expect((json["hasReservation"] as? [String: Any])?["bool"] as? Bool == true)
        #expect(json["trip"] is [String: Any])
        let decoded = try JSONDecoder().decode(DefaultSnapshot.self, from: JSONEncoder().encode(snapshot))
        #expect(decoded == snapshot)
        let moved = try PersistentIdentifier.identifier(for: "elsewhere", entityName: "Trip", primaryKey: "paris")
        let copy = snapshot.copy(persistentIdentifier: item.persistentModelID, remappedIdentifiers: [trip.persistentModelID: moved])
        let copied = try JSONSerialization.jsonObject(with: JSONEncoder().encode(copy)) as! [String: Any]
        let reference = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONSerialization.data(withJSONObject: (copied["trip"] as! [String: Any])["model"]!))
        #expect(reference == moved)
        #expect(moved.storeIdentifier == "elsewhere")
    }

    @Test func theSnapshotCodingKeys() {
        #expect(DataStoreSnapshotCodingKey.persistentIdentifier.stringValue == "persistentIdentifier")
        #expect(DataStoreSnapshotCodingKey(stringValue: "persistentIdentifier")?.stringValue == "persistentIdentifier")
        #expect(DataStoreSnapshotCodingKey(stringValue: "name")?.description == "name")
        #expect(DataStoreSnapshotCodingKey.modeledProperty("name").debugDescription.contains("name"))
        #expect(DataStoreSnapshotCodingKey(intValue: 1) == nil)
        #expect(DataStoreSnapshotCodingKey.modeledProperty("x").intValue == nil)
    }
}

/// An editing state of a context of its own (as a store gets one from SwiftData).
struct EditingStateSource {
    let context: ModelContext
    var state: EditingState { context.editingState }
    init(author: String? = nil) {
        context = ModelContext(try! ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.author = author
    }
}

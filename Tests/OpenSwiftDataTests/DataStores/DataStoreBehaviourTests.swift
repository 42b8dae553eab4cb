import Foundation
import OpenSwiftData
@testable import trips
import Testing

/// Custom stores beyond the JSON file: a store that filters, sorts and batch-deletes itself (SQLite through
/// `DefaultStore`), a store with its own snapshot type that rewrites what it saves.
@Suite struct DataStoreBehaviourTests {
    static var schema: Schema { Schema([Trip.self, BucketListItem.self, LivingAccommodation.self]) }

    @Test func aStoreThatFiltersAndSortsItselfAnswersDescriptorsInFull() throws {
        let configuration = SQLiteDataConfiguration(schema: Self.schema, url: temporaryStoreURL())
        let container = try ModelContainer(for: Trip.self, BucketListItem.self, LivingAccommodation.self, configurations: configuration)
        let context = ModelContext(container)
        for (name, destination) in [("Rome", "Italy"), ("Paris", "France"), ("Lyon", "France"), ("Nice", "France")] {
            let trip = Trip(name: name, destination: destination)
            trip.bucketList = [BucketListItem(title: "See \(name)", details: "", hasReservation: false, isInPlan: true)]
            context.insert(trip)
        }
        try context.save()
        var france = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "France" }, sortBy: [SortDescriptor(\.name)])
        france.fetchLimit = 2
        let reader = ModelContext(container)
        let trips = try reader.fetch(france)
        #expect(trips.map(\.name) == ["Lyon", "Nice"])
        #expect(trips.first?.bucketList.map(\.title) == ["See Lyon"])
        #expect(try reader.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "France" })) == 3)
        let store = try #require(configuration.opened.store)
        #expect(store.filteredFetches > 0)
        try reader.delete(model: Trip.self, where: #Predicate { $0.destination == "France" })
        #expect(store.batchDeletes == 1)
        #expect(store.batchDeleteStates == [reader.editingState])
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Rome"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BucketListItem>()) == 1)
    }

    @Test func aStoreWithItsOwnSnapshotTypeAndRewrittenValues() throws {
        let container = try ModelContainer(for: Self.schema, configurations: [MemoryDataConfiguration(schema: Self.schema)])
        let context = ModelContext(container)
        let trip = Trip(name: "  Paris  ", destination: "France")
        context.insert(trip)
        try context.save()
        #expect(trip.name == "Paris")  // snapshotsToReregister
        #expect(trip.persistentModelID.id.hashValue == (try PersistentIdentifier.identifier(for: trip.persistentModelID.storeIdentifier!, entityName: "Trip", primaryKey: 1)).id.hashValue)
        trip.destination = "Île-de-France"
        try context.save()
        let other = ModelContext(container)
        let read = try #require(try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" })).first)
        #expect(read.destination == "Île-de-France")
        #expect(read.persistentModelID == trip.persistentModelID)
    }

    @Test func aStoreThatKeepsHistoryAnswersTheContextsHistoryRequests() throws {
        let configuration = SQLiteDataConfiguration(schema: Self.schema, url: temporaryStoreURL())
        let container = try ModelContainer(for: Self.schema, configurations: [configuration])
        let context = ModelContext(container)
        context.author = "planner"
        let trip = Trip(name: "Paris", destination: "France")
        context.insert(trip)
        try context.save()
        trip.name = "Paris in May"
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.map(\.author) == ["planner", "planner"])
        let inserts = history.first?.changes.compactMap { change -> PersistentIdentifier? in
            if case .insert(let insert) = change { return insert.changedPersistentIdentifier }
            return nil
        }
        #expect(inserts == [trip.persistentModelID])
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
        // A store that keeps none has none to give.
        let memory = try ModelContainer(for: Self.schema, configurations: [MemoryDataConfiguration(schema: Self.schema)])
        #expect(try ModelContext(memory).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
    }

    @Test func aConfigurationWhoseStoreDoesNotOpenIsALoadError() throws {
        let configuration = JSONFileConfiguration(schema: Self.schema, fileURL: URL(string: "https://example.com/trips.json")!)
        #expect(throws: DataStoreError.unsupportedFeature) { try ModelContainer(for: Self.schema, configurations: [configuration]) }
    }

    @Test func twoConfigurationsWithOneNameAreRefused() throws {
        let a = MemoryDataConfiguration(schema: Self.schema)
        let b = JSONFileConfiguration(name: "Memory", schema: Self.schema, fileURL: temporaryStoreURL())
        #expect(throws: SwiftDataError.duplicateConfiguration) { try ModelContainer(for: Self.schema, configurations: [a, b]) }
    }
}

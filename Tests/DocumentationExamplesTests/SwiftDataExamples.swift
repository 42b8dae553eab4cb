import Foundation
import OpenSwiftData
import Testing

// The examples of OpenSwiftData's article "Porting a SwiftData app's model layer" (PortingFromSwiftData.md).

// doc: swiftdata-model
@Model final class Trip {
    var name: String
    var destination: String
    var startDate: Date
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = []

    init(name: String, destination: String, startDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }
}

@Model final class BucketListItem {
    var title: String
    var hasReservation: Bool
    var trip: Trip?

    init(title: String, hasReservation: Bool) {
        self.title = title
        self.hasReservation = hasReservation
    }
}
// end-doc

// doc: swiftdata-actor
@ModelActor actor TripImporter {
    func importTrips(named names: [String]) throws -> [PersistentIdentifier] {
        let trips = names.map { Trip(name: $0, destination: "Imported", startDate: .now) }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }
}
// end-doc

@Suite("Documentation: Porting a SwiftData app's model layer")
struct SwiftDataExamples {
    @Test func aContainerOnAStoreFileInsertsAndSaves() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let storeURL = folder.storeURL
        // doc: swiftdata-container
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(container)

        let trip = Trip(name: "Spring in Paris", destination: "Paris", startDate: .now)
        trip.bucketList.append(BucketListItem(title: "Louvre", hasReservation: true))
        context.insert(trip)                     // the item is inserted with it
        try context.save()
        // end-doc
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 1)
        #expect(FileManager.default.fileExists(atPath: storeURL.path))
    }

    @Test func aSearchAsSampleTripsWritesIt() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.storeURL)))
        for (name, place) in [("Temples", "Kyoto"), ("Lights", "Reykjavík"), ("Food", "Osaka")] {
            context.insert(Trip(name: name, destination: place, startDate: .now))
        }
        let searchText = "kyo"
        // doc: swiftdata-fetch
        var descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination.localizedStandardContains(searchText) },
            sortBy: [SortDescriptor(\.startDate, order: .reverse)])
        descriptor.fetchLimit = 20
        let trips = try context.fetch(descriptor)        // SQL: destination CONTAINS[cd] 'kyo'
        // end-doc
        #expect(trips.map(\.destination) == ["Kyoto"])
    }

    @Test func anActorImportsAndHandsBackIdentifiers() async throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.storeURL))
        // doc: swiftdata-actor-use
        let importer = TripImporter(modelContainer: container)
        let ids = try await importer.importTrips(named: ["Lisbon", "Quito"])
        let context = ModelContext(container)
        let first = context.model(for: ids[0]) as? Trip       // identifiers cross actors, models do not
        // end-doc
        #expect(first?.name == "Lisbon")
    }
}

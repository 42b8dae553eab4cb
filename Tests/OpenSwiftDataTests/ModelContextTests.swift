import Foundation
import OpenSwiftData
@testable import trips
import Testing

@Suite struct ModelContextTests {
    @Test func aTripInsertedWithItsItemsIsSavedAndFetchedAgain() throws {
        let url = temporaryStoreURL()
        do {
            let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let trip = Trip(name: "Paris", destination: "France")
            trip.bucketList = [BucketListItem(title: "Louvre", details: "Art", hasReservation: true, isInPlan: true)]
            trip.livingAccommodation = LivingAccommodation(address: "1 Rue", placeName: "Hotel")
            #expect(trip.modelContext == nil)
            context.insert(trip)
            #expect(trip.modelContext === context)
            #expect(context.hasChanges)
            #expect(context.insertedModelsArray.count == 3)
            try context.save()
            #expect(!context.hasChanges)
        }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>())
        #expect(trips.map(\.name) == ["Paris"])
        let trip = try #require(trips.first)
        #expect(trip.bucketList.map(\.title) == ["Louvre"])
        #expect(trip.bucketList.first?.trip === trip)
        #expect(trip.livingAccommodation?.placeName == "Hotel")
        #expect(trip.livingAccommodation?.trip === trip)
    }
}

func temporaryStoreURL() -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("default.store")
}

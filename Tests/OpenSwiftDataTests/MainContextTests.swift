import Foundation
import OpenSwiftData
@testable import trips
import Testing

/// The container's main context: the main actor's, autosaving, and seeing what the container's other
/// contexts save.
@Suite struct MainContextTests {
    /// Waits on the main actor (letting the main queue run) until `condition` holds, up to five seconds.
    @MainActor func eventually(_ condition: () throws -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try condition()
    }

    @Test @MainActor func theMainContextAutosavesItsChanges() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let context = container.mainContext
        #expect(context === container.mainContext)
        #expect(context.autosaveEnabled)
        context.insert(Trip(name: "Auto", destination: "Saved"))
        #expect(context.hasChanges)
        #expect(try await eventually { !context.hasChanges })
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Auto"])
    }

    @Test @MainActor func aContextWithoutAutosaveKeepsItsChangesPending() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let context = ModelContext(container)
        #expect(!context.autosaveEnabled)
        context.insert(Trip(name: "Pending", destination: "X"))
        try await Task.sleep(for: .milliseconds(50))
        #expect(context.hasChanges)
    }

    @Test @MainActor func theMainContextSeesWhatAnActorSaves() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let main = container.mainContext
        let trip = Trip(name: "Before", destination: "Here")
        main.insert(trip)
        try main.save()
        let id = trip.persistentModelID
        let importer = TripEditor(modelContainer: container)
        try await importer.rename(id, to: "After")
        #expect(try await eventually { trip.name == "After" })
        _ = try await importer.importTrips(["New"])
        #expect(try await eventually { try main.fetchCount(FetchDescriptor<Trip>()) == 2 })
    }
}

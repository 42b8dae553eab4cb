import Foundation
import OpenSwiftData
@testable import trips
import Testing

/// A background import through `@ModelActor`, as SampleTrips' widget and import code do: the actor saves
/// with its own context; identifiers cross back, models do not.
@ModelActor actor TripEditor {
    func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
        let trips = names.map { Trip(name: $0, destination: "Imported") }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    func destination(of id: PersistentIdentifier) -> String? { self[id, as: Trip.self]?.destination }

    func rename(_ id: PersistentIdentifier, to name: String) throws {
        guard let trip = self[id, as: Trip.self] else { return }
        trip.name = name
        try modelContext.save()
    }
}

@Suite struct ModelActorTests {
    @Test func anActorImportsOnItsOwnContextAndHandsBackIdentifiers() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let importer = TripEditor(modelContainer: container)
        let ids = try await importer.importTrips(["a", "b", "c"])
        #expect(ids.count == 3 && ids.allSatisfy { $0.storeIdentifier != nil })
        #expect(await importer.destination(of: ids[0]) == "Imported")
        try await importer.rename(ids[1], to: "B")
        let context = ModelContext(container)
        #expect(Set(try context.fetch(FetchDescriptor<Trip>()).map(\.name)) == ["a", "B", "c"])
        #expect((context.model(for: ids[2]) as? Trip)?.name == "c")
        #expect(importer.modelContainer === container)
    }

    @Test func anIdentifierOfADeletedModelGivesNil() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let importer = TripEditor(modelContainer: container)
        let ids = try await importer.importTrips(["gone"])
        let context = ModelContext(container)
        try context.delete(model: Trip.self)
        try context.save()
        #expect(await importer.destination(of: ids[0]) == nil)
    }

    @Test func manyActorsSaveAtOnce() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let importer = TripEditor(modelContainer: container)
                    for batch in 0..<5 { _ = try await importer.importTrips(["w\(worker)b\(batch)"]) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 20)
    }
}

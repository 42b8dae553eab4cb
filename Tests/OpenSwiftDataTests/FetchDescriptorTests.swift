import Foundation
import OpenCoreData
import OpenSwiftData
@testable import trips
import Testing

/// FetchDescriptor from Apple's documentation, and the differential check: each descriptor gives the models
/// the equivalent NSFetchRequest gives (same rows, same order), over seeded random trips.
@Suite struct FetchDescriptorTests {
    static let destinations = ["France", "Japan", "Peru", "Iceland", "Kenya"]

    /// A context over a new store with `count` seeded random trips (seed printed on failure).
    func seeded(_ seed: UInt64, count: Int = 40) throws -> ModelContext {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let context = ModelContext(container)
        var random = SplitMix(seed)
        for i in 0..<count {
            let trip = Trip(name: "Trip \(random.next() % 100) #\(i)", destination: Self.destinations[Int(random.next() % 5)],
                            startDate: Date(timeIntervalSince1970: Double(random.next() % 1_000_000)))
            for j in 0..<Int(random.next() % 4) {
                trip.bucketList.append(BucketListItem(title: "Item \(j)", details: "", hasReservation: random.next() % 2 == 0, isInPlan: true))
            }
            context.insert(trip)
        }
        try context.save()
        return context
    }

    @Test func aPredicateAndSortRunInTheStoreAsTheEquivalentFetchRequest() throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        let context = try seeded(seed)
        let destination = "Japan"
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == destination || $0.name.contains("5") },
                                               sortBy: [SortDescriptor(\.startDate, order: .reverse), SortDescriptor(\.name)])
        descriptor.fetchLimit = 7
        descriptor.fetchOffset = 2
        let models = try context.fetch(descriptor)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trip")
        request.predicate = NSPredicate(format: "destination == %@ OR name CONTAINS %@", destination, "5")
        request.sortDescriptors = [NSSortDescriptor(key: "startDate", ascending: false), NSSortDescriptor(key: "name", ascending: true)]
        request.fetchLimit = 7
        request.fetchOffset = 2
        let objects = try context.managedObjectContext.fetch(request)
        #expect(!models.isEmpty, "seed \(seed)")
        #expect(models.map { $0.persistentBackingData.metadata as? NSManagedObject } == objects, "seed \(seed)")
        descriptor.fetchLimit = nil
        descriptor.fetchOffset = nil
        let counted = NSFetchRequest<NSManagedObject>(entityName: "Trip")
        counted.predicate = request.predicate
        #expect(try context.fetchCount(descriptor) == (try context.managedObjectContext.count(for: counted)), "seed \(seed)")
    }

    @Test func aPredicateOnAComputedPropertyIsEvaluatedInMemoryWithTheSameMeaning() throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        let context = try seeded(seed)
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.displayName.contains("Peru") }, sortBy: [SortDescriptor(\.name)])
        descriptor.fetchLimit = 3
        let inMemory = try context.fetch(descriptor)
        var stored = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Peru" }, sortBy: [SortDescriptor(\.name)])
        stored.fetchLimit = 3
        #expect(inMemory.map(\.name) == (try context.fetch(stored)).map(\.name), "seed \(seed)")
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.displayName.contains("Peru") }))
                == (try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Peru" }))), "seed \(seed)")
    }

    @Test func localizedStandardContainsSearchesAsSampleTripsDoes() throws {
        let context = try seeded(7)
        let text = "JAP"
        let found = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination.localizedStandardContains(text) }))
        #expect(!found.isEmpty)
        #expect(found.allSatisfy { $0.destination == "Japan" })
    }

    @Test func aPredicateOverTheToManyBecomesASubquery() throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        let context = try seeded(seed)
        let withReservation = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { trip in
            trip.bucketList.contains { $0.hasReservation }
        }))
        let all = try context.fetch(FetchDescriptor<Trip>())
        #expect(Set(withReservation.map(\.persistentModelID)) == Set(all.filter { $0.bucketList.contains { $0.hasReservation } }.map(\.persistentModelID)),
                "seed \(seed)")
    }

    @Test func fetchIdentifiersGivesTheFetchedModelsIdentifiers() throws {
        let context = try seeded(11)
        let descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        let identifiers = try context.fetchIdentifiers(descriptor)
        #expect(identifiers == (try context.fetch(descriptor)).map(\.persistentModelID))
        #expect(identifiers.allSatisfy { $0.entityName == "Trip" && $0.storeIdentifier != nil })
    }
}

/// SplitMix64: the seeded random source of these tests.
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

import Foundation
import OpenSwiftData
@testable import trips
import Testing

/// The same seeded random edits and fetches against OpenSwiftData's own SQLite store and against custom
/// stores (a JSON file that leaves filtering and sorting to memory; SQLite through `DefaultStore`, which
/// does both itself; a store in memory with its own snapshot type): every fetch gives the same models.
@Suite struct DataStoreDifferentialTests {
    static var schema: Schema { Schema([Trip.self, BucketListItem.self, LivingAccommodation.self]) }

    func containers() throws -> [(String, ModelContainer)] {
        let folder = temporaryStoreURL().deletingLastPathComponent()
        return [
            ("sqlite", try ModelContainer(for: Self.schema, configurations: [ModelConfiguration(schema: Self.schema, url: folder.appendingPathComponent("own.store"))])),
            ("json", try ModelContainer(for: Self.schema, configurations: [JSONFileConfiguration(schema: Self.schema, fileURL: folder.appendingPathComponent("trips.json"))])),
            ("sqlite-datastore", try ModelContainer(for: Self.schema, configurations: [SQLiteDataConfiguration(schema: Self.schema, url: folder.appendingPathComponent("data.store"))])),
            ("memory-datastore", try ModelContainer(for: Self.schema, configurations: [MemoryDataConfiguration(schema: Self.schema)])),
        ]
    }

    static let destinations = ["France", "Italy", "Spain"]

    /// One fetch of the random plan: a predicate, a sort and a window.
    static func descriptor(_ random: inout SplitMix) -> FetchDescriptor<Trip> {
        let destination = destinations[Int(random.next() % 3)]
        let bound = "T\(random.next() % 30)"
        var descriptor: FetchDescriptor<Trip>
        switch random.next() % 5 {
        case 0: descriptor = FetchDescriptor()
        case 1: descriptor = FetchDescriptor(predicate: #Predicate { $0.destination == destination })
        case 2: descriptor = FetchDescriptor(predicate: #Predicate { $0.name < bound })
        case 3: descriptor = FetchDescriptor(predicate: #Predicate { $0.destination != destination && $0.name >= bound })
        default: descriptor = FetchDescriptor(predicate: #Predicate { $0.bucketList.contains { $0.hasReservation } })
        }
        switch random.next() % 3 {
        case 0: descriptor.sortBy = [SortDescriptor(\.name)]
        case 1: descriptor.sortBy = [SortDescriptor(\.name, order: .reverse)]
        default: descriptor.sortBy = [SortDescriptor(\.destination), SortDescriptor(\.name)]
        }
        if random.next() % 3 == 0 { descriptor.fetchOffset = Int(random.next() % 4) }
        if random.next() % 3 == 0 { descriptor.fetchLimit = Int(random.next() % 5) + 1 }
        return descriptor
    }

    /// What a fetch shows: each trip with its items.
    static func shown(_ trips: [Trip]) -> [String] {
        trips.map { "\($0.name)@\($0.destination):" + $0.bucketList.map { "\($0.title)\($0.hasReservation ? "*" : "")" }.sorted().joined(separator: ",") }
    }

    /// Applies one random edit to a context (trips found by name, so that every store gets the same edit).
    static func edit(_ context: ModelContext, _ step: Int, _ choice: UInt64, _ pick: UInt64) throws {
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        let target = trips.isEmpty ? nil : trips[Int(pick % UInt64(trips.count))]
        switch (choice % 6, target) {
        case (0, _), (_, nil):
            let trip = Trip(name: "T\(step)", destination: destinations[Int(pick % 3)], startDate: Date(timeIntervalSince1970: Double(step)))
            trip.bucketList = (0..<Int(pick % 3)).map { BucketListItem(title: "i\(step).\($0)", details: "", hasReservation: ($0 + step) % 2 == 0, isInPlan: true) }
            context.insert(trip)
        case (1, let trip?): trip.name += "r\(step)"
        case (2, let trip?): trip.destination = destinations[(destinations.firstIndex(of: trip.destination)! + 1) % 3]
        case (3, let trip?): context.delete(trip)
        case (4, let trip?): trip.bucketList.append(BucketListItem(title: "a\(step)", details: "", hasReservation: step % 2 == 0, isInPlan: false))
        case (_, let trip?): trip.bucketList.filter { !$0.isDeleted }.min { $0.title < $1.title }.map { context.delete($0) }
        }
        if step % 3 == 2 { try context.save() }
    }

    @Test(arguments: [UInt64(1), 2, 3, 226570, 508468] + (0..<5).map { _ in UInt64.random(in: 4..<1_000_000) })
    func everyStoreShowsTheSameModels(seed: UInt64) throws {
        let stores = try containers()
        let contexts = stores.map { ModelContext($0.1) }
        var random = SplitMix(seed)
        for step in 0..<40 {
            let (choice, pick) = (random.next(), random.next())
            for context in contexts { try Self.edit(context, step, choice, pick) }
            var fetchRandom = SplitMix(random.next())
            let descriptor = Self.descriptor(&fetchRandom)
            let expected = Self.shown(try contexts[0].fetch(descriptor))
            for (i, context) in contexts.enumerated().dropFirst() {
                let shown = Self.shown(try context.fetch(descriptor))
                #expect(shown == expected, "seed \(seed), step \(step), store \(stores[i].0): \(shown) instead of \(expected)")
                #expect(try context.fetchCount(descriptor) == expected.count, "seed \(seed), step \(step), store \(stores[i].0)")
            }
        }
        for context in contexts { try context.save() }
        // A fresh context of each store reads back what was saved.
        let all = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        let expected = Self.shown(try ModelContext(stores[0].1).fetch(all))
        for (name, container) in stores.dropFirst() {
            #expect(Self.shown(try ModelContext(container).fetch(all)) == expected, "seed \(seed), store \(name), reread")
        }
    }
}

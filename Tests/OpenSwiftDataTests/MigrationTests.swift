import Foundation
import OpenCoreData
import OpenSwiftData
@testable import trips
import Testing

/// Schema evolution: versioned schemas, migration plans run through Core Data's staged migration, and the
/// errors SwiftData documents for stores a plan cannot migrate.
@Suite struct MigrationTests {
    static let places = ["France", "Japan", "Peru", "Iceland", "Kenya"]

    /// A V1 store at a new URL with `count` seeded random trips (names drawn from a small set, so some
    /// repeat); returns the URL and the trips written, as (name, destination).
    func v1Store(seed: UInt64, count: Int) throws -> (URL, [(String, String)]) {
        let url = temporaryStoreURL()
        var random = SplitMix(seed)
        let trips = (0..<count).map { _ in ("Trip \(random.next() % 12)", Self.places[Int(random.next() % 5)]) }
        let container = try ModelContainer(for: Schema(versionedSchema: TripsV1.self), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        for (name, destination) in trips { context.insert(TripsV1.Trip(name: name, destination: destination)) }
        try context.save()
        return (url, trips)
    }

    @Test func nestedModelClassesAreEntitiesNamedForTheClassAlone() throws {
        let schema = Schema(versionedSchema: TripsV2.self)
        #expect(schema.entities.map(\.name).sorted() == ["Note", "Trip"])
        #expect(schema.version == Schema.Version(2, 0, 0))
        #expect(Schema.entityName(for: TripsV1.Trip.self) == "Trip")
        #expect(schema.entitiesByName["Trip"]?.attributesByName["place"]?.originalName == "destination")
    }

    @Test func aV1StoreMigratesLightweightToV2() throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        print("MigrationTests.aV1StoreMigratesLightweightToV2 seed \(seed)")
        let (url, written) = try v1Store(seed: seed, count: 30)
        let container = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: LightweightPlan.self,
                                           configurations: ModelConfiguration(url: url))
        #expect(container.migrationPlan.map(ObjectIdentifier.init) == ObjectIdentifier(LightweightPlan.self))
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<TripsV2.Trip>())
        let read = trips.map { "\($0.name) \($0.place)" }.sorted()
        #expect(read == written.map { "\($0.0) \($0.1)" }.sorted(), "seed \(seed)")
        #expect(trips.allSatisfy { $0.rating == 3 }, "seed \(seed)")
        #expect(try context.fetchCount(FetchDescriptor<TripsV2.Note>()) == 0)
        context.insert(TripsV2.Note(text: "migrated"))
        try context.save()
        let reopened = try ModelContainer(for: TripsV2.Trip.self, TripsV2.Note.self, migrationPlan: LightweightPlan.self,
                                          configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<TripsV2.Note>()).map(\.text) == ["migrated"])
    }

    @Test func aCustomStageDeduplicatesBeforeAndFillsAfterTheMigration() throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        print("MigrationTests.aCustomStageDeduplicatesBeforeAndFillsAfterTheMigration seed \(seed)")
        let (url, written) = try v1Store(seed: seed, count: 40)
        let names = Set(written.map(\.0))
        #expect(names.count < written.count, "seed \(seed): the seed gave no duplicate names to remove")
        let container = try ModelContainer(for: Schema(versionedSchema: TripsV2Unique.self), migrationPlan: DeduplicatingPlan.self,
                                           configurations: ModelConfiguration(url: url))
        let trips = try ModelContext(container).fetch(FetchDescriptor<TripsV2Unique.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == names.sorted(), "seed \(seed)")
        #expect(trips.allSatisfy { $0.nameLength == $0.name.count && $0.nameLength > 0 }, "seed \(seed)")
        let kept = Dictionary(grouping: written, by: \.0).mapValues { $0.map(\.1).min()! }
        #expect(trips.allSatisfy { kept[$0.name] == $0.destination }, "seed \(seed): willMigrate keeps each name's first destination")
    }

    @Test func aFailingCustomStageLeavesTheStoreFileByteIdentical() throws {
        let (url, written) = try v1Store(seed: 5, count: 10)
        let folder = url.deletingLastPathComponent()
        let before = try Data(contentsOf: url)
        #expect(throws: FailingPlan.Refused()) {
            try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: FailingPlan.self,
                               configurations: ModelConfiguration(url: url))
        }
        #expect(try Data(contentsOf: url) == before)
        // Reading the store's metadata leaves SQLite's -wal and -shm files (empty of changes); no copy is left.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(Set(files).subtracting(["default.store-wal", "default.store-shm"]) == ["default.store"], "\(files)")
        let container = try ModelContainer(for: Schema(versionedSchema: TripsV1.self), configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TripsV1.Trip>()) == written.count)
    }

    @Test func aStoreWithNoStageToTheCurrentVersionFailsAndStaysAsItWas() throws {
        let (url, _) = try v1Store(seed: 6, count: 3)
        let before = try Data(contentsOf: url)
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: StagelessPlan.self,
                               configurations: ModelConfiguration(url: url))
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aStoreAtALaterVersionIsABackwardMigration() throws {
        let (url, _) = try v1Store(seed: 7, count: 3)
        _ = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: LightweightPlan.self,
                               configurations: ModelConfiguration(url: url))
        #expect(throws: SwiftDataError.backwardMigration) {
            try ModelContainer(for: Schema(versionedSchema: TripsV1.self), migrationPlan: LightweightPlan.self,
                               configurations: ModelConfiguration(url: url))
        }
    }

    @Test func aStoreAtNoVersionOfThePlanIsAnUnknownDataStoreSchema() throws {
        let url = temporaryStoreURL()
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Trip(name: "Lima", destination: "Peru"))
        try context.save()
        #expect(throws: SwiftDataError.unknownDataStoreSchema) {
            try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: LightweightPlan.self,
                               configurations: ModelConfiguration(url: url))
        }
    }

    @Test func aStageNamingAVersionThePlanLacksIsAnUnknownSchema() throws {
        let (url, _) = try v1Store(seed: 8, count: 1)
        #expect(throws: SwiftDataError.unknownSchema) {
            try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: StrayStagePlan.self,
                               configurations: ModelConfiguration(url: url))
        }
    }

    @Test func aNewStoreNeedsNoMigration() throws {
        let url = temporaryStoreURL()
        let container = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: LightweightPlan.self,
                                           configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TripsV2.Trip>()) == 0)
    }
}

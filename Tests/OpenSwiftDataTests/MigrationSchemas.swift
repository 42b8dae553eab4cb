import Foundation
import OpenSwiftData
@testable import trips

// Versioned schemas as apps write them: each version nests its model classes, under the same names.

/// The first version: trips with a name and a destination.
enum TripsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        var name: String
        var destination: String

        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

/// A lightweight step from V1: `destination` renamed `place`, an attribute added with a default, an
/// entity added.
enum TripsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Note.self] }

    @Model final class Trip {
        var name: String
        @Attribute(originalName: "destination") var place: String
        var rating: Int = 3

        init(name: String, place: String) {
            self.name = name
            self.place = place
        }
    }

    @Model final class Note {
        var text: String

        init(text: String) { self.text = text }
    }
}

/// A custom step from V1: names become unique (duplicates must go first) and each trip gets the length
/// of its name, which only code can fill.
enum TripsV2Unique: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 1, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        var nameLength: Int = 0

        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

/// V1 to V2, lightweight.
enum LightweightPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
}

/// V1 to V2Unique: duplicates deleted in `willMigrate` (on V1's models), lengths filled in `didMigrate`
/// (on V2Unique's).
enum DeduplicatingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2Unique.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TripsV1.self, toVersion: TripsV2Unique.self, willMigrate: { context in
            var seen = Set<String>()
            for trip in try context.fetch(FetchDescriptor<TripsV1.Trip>(sortBy: [SortDescriptor(\.destination)]))
            where !seen.insert(trip.name).inserted {
                context.delete(trip)
            }
            try context.save()
        }, didMigrate: { context in
            for trip in try context.fetch(FetchDescriptor<TripsV2Unique.Trip>()) { trip.nameLength = trip.name.count }
            try context.save()
        })]
    }
}

/// A custom step that saves a change in `willMigrate`, then fails in `didMigrate`, after the store was migrated.
enum FailingPlan: SchemaMigrationPlan {
    struct Refused: Error, Equatable {}

    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TripsV1.self, toVersion: TripsV2.self, willMigrate: { context in
            try context.delete(model: TripsV1.Trip.self)
            try context.save()
        }, didMigrate: { _ in throw Refused() })]
    }
}

/// A plan whose stage names a version its schemas lack.
enum StrayStagePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
}

/// A plan without stages: a V1 store has no way to V2.
enum StagelessPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
    static var stages: [MigrationStage] { [] }
}

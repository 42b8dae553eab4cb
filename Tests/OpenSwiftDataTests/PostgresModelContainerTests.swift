import Foundation
import OpenCoreDataPostgres
import OpenSwiftData
@testable import trips
import Testing

/// Item 8 of the issue, the PostgreSQL half: a configuration whose URL is a `postgres://` one opens the
/// PostgreSQL store (docs/PostgreSQL.md), so a SwiftData model layer scales out with nothing else changed.
/// The server is the one `OPENCOREDATA_POSTGRES_URL` names (`.ci/run` starts one); without it the tests are
/// skipped, unless `OPENCOREDATA_REQUIRE_POSTGRES` is set, when they fail.
@Suite(.enabled(if: PostgresServer.url != nil || PostgresServer.required, "no OPENCOREDATA_POSTGRES_URL"))
struct PostgresModelContainerTests {
    @Test func tripsAreSavedFetchedAndReopenedOnPostgreSQL() throws {
        let url = try #require(PostgresServer.storeURL(), "OPENCOREDATA_POSTGRES_URL is not set")
        do {
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
            for (name, place) in [("Temples", "Kyoto"), ("Lights", "Reykjavík"), ("Food", "Osaka")] {
                let trip = Trip(name: name, destination: place, startDate: Date(timeIntervalSince1970: Double(name.count)))
                trip.bucketList = [BucketListItem(title: "See \(place)", details: "", hasReservation: place == "Kyoto", isInPlan: true)]
                context.insert(trip)
            }
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        let text = "KYO"
        let found = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination.localizedStandardContains(text) }))
        #expect(found.map(\.name) == ["Temples"])
        #expect(found.first?.bucketList.map(\.title) == ["See Kyoto"])
        let sorted = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, order: .reverse)]))
        #expect(sorted.map(\.name) == ["Temples", "Lights", "Food"])
        context.delete(try #require(found.first))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 2)
        #expect(try context.fetch(FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.hasReservation })).isEmpty)
    }
}

/// The tests' PostgreSQL server, from the environment `.ci/run` sets.
enum PostgresServer {
    static let url: URL? = ProcessInfo.processInfo.environment["OPENCOREDATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    static var required: Bool { ProcessInfo.processInfo.environment["OPENCOREDATA_REQUIRE_POSTGRES"].map { !$0.isEmpty && $0 != "0" } ?? false }

    /// A URL for a new store in a schema of its own.
    static func storeURL() -> URL? {
        guard let url, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let schema = "sd_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        parts.queryItems = (parts.queryItems ?? []).filter { $0.name != "schema" } + [URLQueryItem(name: "schema", value: String(schema))]
        return parts.url
    }
}

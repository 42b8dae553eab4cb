import Foundation
import OpenSwiftData

// `swift run trips [--fresh] [--store PATH]`: SampleTrips' model layer on a real store file — insert, a search,
// an edit, a delete with its cascade, a background @ModelActor import, and the store reopened.

let arguments = CommandLine.arguments.dropFirst()
let fresh = arguments.contains("--fresh")
let storeURL = arguments.firstIndex(of: "--store").flatMap { arguments.index(after: $0) < arguments.endIndex ? URL(fileURLWithPath: arguments[arguments.index(after: $0)]) : nil }
    ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("trips/Trips.store")
if fresh { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storeURL.path + suffix) } }
try FileManager.default.createDirectory(at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)

func day(_ offset: Double) -> Date { Date(timeIntervalSince1970: 1_790_000_000 + offset * 86_400) }

let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeURL))
print("store: \(storeURL.path)")
print("schema: \(container.schema.entities.map(\.name).sorted().joined(separator: ", "))")
let context = container.mainContext

// Insert: models made by their initializers, related before insertion; one insert takes them all.
let paris = Trip(name: "Spring in Paris", destination: "Paris", startDate: day(0), endDate: day(6))
paris.bucketList = [BucketListItem(title: "Louvre", details: "Arrive early", hasReservation: true, isInPlan: true),
                    BucketListItem(title: "Seine cruise", details: "Evening", hasReservation: false, isInPlan: true)]
paris.livingAccommodation = LivingAccommodation(address: "12 Rue Cler", placeName: "Hôtel Cler")
let kyoto = Trip(name: "Kyoto temples", destination: "Kyoto", startDate: day(30), endDate: day(37))
kyoto.bucketList = [BucketListItem(title: "Fushimi Inari", details: "Sunrise", hasReservation: false, isInPlan: true)]
let reykjavik = Trip(name: "Northern lights", destination: "Reykjavík", startDate: day(60), endDate: day(64))
for trip in [paris, kyoto, reykjavik] { context.insert(trip) }
try context.save()
print("inserted \(try context.fetchCount(FetchDescriptor<Trip>())) trips, \(try context.fetchCount(FetchDescriptor<BucketListItem>())) bucket-list items")

// A search as SampleTrips' list does it: localizedStandardContains in #Predicate, sorted by start date.
let searchText = "KYO"
let search = FetchDescriptor<Trip>(predicate: #Predicate { $0.name.localizedStandardContains(searchText) || $0.destination.localizedStandardContains(searchText) },
                                   sortBy: [SortDescriptor(\.startDate)])
print("search \"\(searchText)\": \(try context.fetch(search).map { "\($0.name) (\($0.destination))" })")
let upcoming = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
print("latest first: \(try context.fetch(upcoming).map(\.name))")

// Edit: a property and a relationship's model, saved.
kyoto.name = "Kyoto in autumn"
kyoto.bucketList.first?.hasReservation = true
try context.save()
let reserved = try context.fetch(FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.hasReservation }, sortBy: [SortDescriptor(\.title)]))
print("edited: \(kyoto.name); reserved items: \(reserved.map(\.title))")

// Delete with its cascade: the trip's bucket list and accommodation go with it.
context.delete(paris)
try context.save()
print("deleted \"Spring in Paris\": \(try context.fetchCount(FetchDescriptor<Trip>())) trips, \(try context.fetchCount(FetchDescriptor<BucketListItem>())) items, \(try context.fetchCount(FetchDescriptor<LivingAccommodation>())) accommodations left")

// A background import on a model actor; the main context sees it (merged on the main queue).
let importer = TripImporter(modelContainer: container)
let imported = try await importer.importTrips(count: 25)
var seen = 0
for _ in 0..<200 {
    seen = try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.starts(with: "Imported") }))
    if seen == imported.count { break }
    try await Task.sleep(for: .milliseconds(10))
}
print("background import: \(imported.count) trips saved by the actor, \(seen) seen by the main context")

// The store reopened by a new container: everything is there, relationships from both sides.
let reopened = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeURL)))
let trips = try reopened.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
let items = try reopened.fetch(FetchDescriptor<BucketListItem>())
let intact = items.allSatisfy { item in item.trip.map { trip in trip.bucketList.contains { $0 === item } } ?? false }
print("reopened: \(trips.count) trips, \(items.count) items; first \(trips.first.map { "\($0.name) with \($0.bucketList.count) item(s)" } ?? "none")")
print(intact ? "store reopened: relationships intact from both sides" : "store reopened: RELATIONSHIPS BROKEN")
if !intact { exit(1) }

import Foundation
import OpenSwiftData

/// The background import: a model actor with a context of its own, handing back identifiers.
@ModelActor actor TripImporter {
    func importTrips(count: Int) throws -> [PersistentIdentifier] {
        let trips = (1...count).map { n in
            let trip = Trip(name: "Imported trip \(n)", destination: ["Lisbon", "Osaka", "Quito"][n % 3],
                            startDate: Date(timeIntervalSince1970: 1_800_000_000 + Double(n) * 86_400))
            trip.bucketList = [BucketListItem(title: "Walk around", details: "Day \(n)", hasReservation: n % 2 == 0, isInPlan: true)]
            return trip
        }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }
}

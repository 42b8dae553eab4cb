import Foundation
import OpenSwiftData

// The model layer of Apple's SampleTrips sample (trips, their bucket lists and where the travellers stay),
// written as a SwiftData app writes it: only `import SwiftData` became `import OpenSwiftData`.

@Model final class Trip {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date

    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = [BucketListItem]()

    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?

    init(name: String, destination: String, startDate: Date = .now, endDate: Date = .distantFuture) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model final class BucketListItem {
    var title: String
    var details: String
    var hasReservation: Bool
    var isInPlan: Bool
    var trip: Trip?

    init(title: String, details: String, hasReservation: Bool, isInPlan: Bool) {
        self.title = title
        self.details = details
        self.hasReservation = hasReservation
        self.isInPlan = isInPlan
    }
}

@Model final class LivingAccommodation {
    var address: String
    var placeName: String
    var trip: Trip?

    init(address: String, placeName: String) {
        self.address = address
        self.placeName = placeName
    }
}

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

import Foundation
import OpenCoreData
import OpenSwiftData
@testable import trips
import Testing

/// A store written through OpenSwiftData opens through OpenCoreData with the matching model, and the other
/// way round; the model made from a schema has the version hashes of the same model written by hand as a
/// Core Data app would (SwiftData's layout: an entity per class, attributes by Swift type, relationships
/// with their inverses and delete rules).
@Suite struct CoreDataInteropTests {
    /// The SampleTrips model as a Core Data developer would declare it.
    static func handWrittenModel() -> NSManagedObjectModel {
        let trip = NSEntityDescription(name: "Trip", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false),
            NSAttributeDescription(name: "destination", type: .stringAttributeType, optional: false),
            NSAttributeDescription(name: "startDate", type: .dateAttributeType, optional: false),
            NSAttributeDescription(name: "endDate", type: .dateAttributeType, optional: false),
            NSRelationshipDescription(name: "bucketList", destination: "BucketListItem", inverse: "trip", toMany: true, deleteRule: .cascadeDeleteRule),
            NSRelationshipDescription(name: "livingAccommodation", destination: "LivingAccommodation", inverse: "trip", deleteRule: .cascadeDeleteRule),
        ])
        let item = NSEntityDescription(name: "BucketListItem", properties: [
            NSAttributeDescription(name: "title", type: .stringAttributeType, optional: false),
            NSAttributeDescription(name: "details", type: .stringAttributeType, optional: false),
            NSAttributeDescription(name: "hasReservation", type: .booleanAttributeType, optional: false),
            NSAttributeDescription(name: "isInPlan", type: .booleanAttributeType, optional: false),
            NSRelationshipDescription(name: "trip", destination: "Trip", inverse: "bucketList"),
        ])
        let stay = NSEntityDescription(name: "LivingAccommodation", properties: [
            NSAttributeDescription(name: "address", type: .stringAttributeType, optional: false),
            NSAttributeDescription(name: "placeName", type: .stringAttributeType, optional: false),
            NSRelationshipDescription(name: "trip", destination: "Trip", inverse: "livingAccommodation"),
        ])
        return NSManagedObjectModel(entities: [trip, item, stay])
    }

    @Test func theSchemasModelHasTheHandWrittenModelsVersionHashes() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let hand = Self.handWrittenModel()
        _ = NSPersistentStoreCoordinator(managedObjectModel: hand)
        #expect(container.managedObjectModel.entityVersionHashesByName == hand.entityVersionHashesByName)
        #expect(Set(container.schema.entities.map(\.name)) == ["Trip", "BucketListItem", "LivingAccommodation"])
        let relationship = try #require(container.schema.entitiesByName["Trip"]?.relationshipsByName["bucketList"])
        #expect(relationship.inverseName == "trip" && relationship.deleteRule == .cascade && !relationship.isToOneRelationship)
        #expect(container.schema.entitiesByName["BucketListItem"]?.relationshipsByName["trip"]?.inverseName == "bucketList")
    }

    @Test func aStoreWrittenThroughOpenSwiftDataOpensThroughOpenCoreData() throws {
        let url = temporaryStoreURL()
        do {
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
            let trip = Trip(name: "Kyoto", destination: "Japan", startDate: Date(timeIntervalSince1970: 100))
            trip.bucketList = [BucketListItem(title: "Temple", details: "Old", hasReservation: false, isInPlan: true)]
            context.insert(trip)
            try context.save()
        }
        let container = NSPersistentContainer(name: "Trips", managedObjectModel: Self.handWrittenModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)
        let trips = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trip"))
        #expect(trips.map { $0.value(forKey: "name") as? String } == ["Kyoto"])
        #expect(trips.first?.value(forKey: "startDate") as? Date == Date(timeIntervalSince1970: 100))
        let items = trips.first?.value(forKey: "bucketList") as? Set<NSManagedObject> ?? []
        #expect(items.map { $0.value(forKey: "title") as? String } == ["Temple"])
    }

    @Test func aStoreWrittenThroughOpenCoreDataOpensThroughOpenSwiftData() throws {
        let url = temporaryStoreURL()
        do {
            let container = NSPersistentContainer(name: "Trips", managedObjectModel: Self.handWrittenModel())
            container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
            container.loadPersistentStores { _, error in #expect(error == nil) }
            let context = container.viewContext
            let trip = NSManagedObject(entity: container.managedObjectModel.entitiesByName["Trip"]!, insertInto: context)
            for (key, value) in ["name": "Nairobi", "destination": "Kenya"] { trip.setValue(value, forKey: key) }
            trip.setValue(Date(timeIntervalSince1970: 5), forKey: "startDate")
            trip.setValue(Date.distantFuture, forKey: "endDate")
            let stay = NSManagedObject(entity: container.managedObjectModel.entitiesByName["LivingAccommodation"]!, insertInto: context)
            stay.setValue("Camp", forKey: "placeName")
            stay.setValue("Road 1", forKey: "address")
            stay.setValue(trip, forKey: "trip")
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.name == "Nairobi" && trip.startDate == Date(timeIntervalSince1970: 5))
        #expect(trip.livingAccommodation?.placeName == "Camp")
        #expect(trip.bucketList.isEmpty)
    }
}

import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A date attribute with Xcode's "Use Scalar Type": Xcode's codegen declares it `TimeInterval`.
final class ScalarDateVisit: NSManagedObject {
    @Managed var arrival: TimeInterval
    @Managed var departure: Date?
}

/// A `Float` is no scalar type of a date (Xcode writes `TimeInterval`, a `Double`).
final class ScalarDateMisfit: NSManagedObject {
    @Managed var arrival: Float
}

/// `TimeInterval` properties of date attributes: seconds since 2001-01-01 00:00:00 UTC, as Core Data's
/// scalar date accessors read and write them; the store and `value(forKey:)` keep a `Date`.
@Suite("Model classes: scalar dates (TimeInterval)")
struct ManagedScalarDateTests {
    private func model(_ cls: NSManagedObject.Type) -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [NSEntityDescription(
            name: "Visit", managedObjectClassName: NSStringFromClass(cls),
            properties: [NSAttributeDescription(name: "arrival", type: .dateAttributeType),
                         NSAttributeDescription(name: "departure", type: .dateAttributeType)])])
    }

    @Test func aTimeIntervalPropertyFitsADateAttribute() throws {
        let fitting = model(ScalarDateVisit.self)
        _ = try NSPersistentStoreCoordinator(validatingModel: fitting)
        #expect(fitting.classWarnings.isEmpty, "\(fitting.classWarnings)")
        let misfit = model(ScalarDateMisfit.self)
        _ = try NSPersistentStoreCoordinator(validatingModel: misfit)
        #expect(misfit.classWarnings.contains { $0.contains("arrival is an attribute of type Date: declare it Date? or TimeInterval") }, "\(misfit.classWarnings)")
    }

    /// Insert, save, refetch in a new context: the seconds come back, and the store holds a date.
    @Test func secondsSinceTheReferenceDateRoundTrip() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(model(ScalarDateVisit.self))
        let context = container.viewContext
        let early = NSEntityDescription.insertNewObject(forEntityName: "Visit", into: context) as! ScalarDateVisit
        #expect(early.arrival == 0, "a nil date reads as 0, as Core Data's scalar accessors read it")
        early.arrival = -86_400.5
        let late = ScalarDateVisit(context: context)
        late.arrival = 700_000_000.25
        late.departure = Date(timeIntervalSinceReferenceDate: 700_003_600)
        #expect(late.value(forKey: "arrival") as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000.25))
        #expect(late.changedValues()["arrival"] as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000.25))
        try context.save()

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let request = NSFetchRequest<ScalarDateVisit>(entityName: "Visit")
            request.sortDescriptors = [NSSortDescriptor(key: "arrival", ascending: true)]
            let visits = try other.fetch(request)
            #expect(visits.map(\.arrival) == [-86_400.5, 700_000_000.25])
            #expect(visits.last?.departure == Date(timeIntervalSinceReferenceDate: 700_003_600))
            #expect(visits.first?.value(forKey: "arrival") as? Date == Date(timeIntervalSince1970: 978_307_200 - 86_400.5))
            // A predicate compares the stored dates.
            request.predicate = NSPredicate(format: "arrival > %@", Date(timeIntervalSinceReferenceDate: 0))
            #expect(try other.fetch(request).map(\.arrival) == [700_000_000.25])
            // A date set through setValue(_:forKey:) reads as its seconds.
            visits[0].setValue(Date(timeIntervalSinceReferenceDate: 12.5), forKey: "arrival")
            #expect(visits[0].arrival == 12.5)
        }
    }

    /// Setting the same seconds again is no change, as for any attribute.
    @Test func settingTheSameSecondsIsNoChange() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(model(ScalarDateVisit.self))
        let visit = ScalarDateVisit(context: container.viewContext)
        visit.arrival = 42
        try container.viewContext.save()
        visit.arrival = 42
        #expect(!visit.hasChanges)
        visit.arrival = 43
        #expect(visit.hasChanges && visit.changedValues()["arrival"] as? Date == Date(timeIntervalSinceReferenceDate: 43))
    }
}

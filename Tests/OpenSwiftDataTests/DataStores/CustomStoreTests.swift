import Foundation
import OpenSwiftData
@testable import trips
import Testing

/// SwiftData's custom stores (`DataStore`): a container over an app's own store works as over the built-in
/// one: insert, fetch with predicates and sorts the store leaves to memory, relationships both ways, edits,
/// cascades, identifiers the store chose, a failed save that changes nothing.
@Suite struct CustomStoreTests {
    static var schema: Schema { Schema([Trip.self, BucketListItem.self, LivingAccommodation.self]) }

    func jsonContainer(_ url: URL) throws -> (ModelContainer, JSONFileConfiguration) {
        let configuration = JSONFileConfiguration(schema: Self.schema, fileURL: url)
        return (try ModelContainer(for: Self.schema, configurations: [configuration]), configuration)
    }

    func jsonURL() -> URL { temporaryStoreURL().deletingLastPathComponent().appendingPathComponent("trips.json") }

    @Test func aTripWithItsItemsIsSavedInTheStoreAndReadBack() throws {
        let url = jsonURL()
        do {
            let (container, _) = try jsonContainer(url)
            let context = ModelContext(container)
            let trip = Trip(name: "Paris", destination: "France")
            trip.bucketList = [BucketListItem(title: "Louvre", details: "Art", hasReservation: true, isInPlan: true)]
            trip.livingAccommodation = LivingAccommodation(address: "1 Rue", placeName: "Hotel")
            context.insert(trip)
            let temporary = trip.persistentModelID
            try context.save()
            #expect(trip.persistentModelID != temporary)
            #expect(trip.persistentModelID.storeIdentifier == "trips.json")
            #expect(trip.persistentModelID.entityName == "Trip")
        }
        let stored = try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: url))
        #expect(stored.map(\.persistentIdentifier.entityName).sorted() == ["BucketListItem", "LivingAccommodation", "Trip"])
        let (container, _) = try jsonContainer(url)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.name == "Paris")
        #expect(trip.bucketList.map(\.title) == ["Louvre"])
        #expect(trip.bucketList.first?.trip === trip)
        #expect(trip.livingAccommodation?.placeName == "Hotel")
        #expect(context.model(for: trip.persistentModelID) === trip)
    }

    @Test func predicatesSortsAndWindowsTheStoreLeavesToMemoryGiveTheRightModels() throws {
        let (container, configuration) = try jsonContainer(jsonURL())
        let context = ModelContext(container)
        for (name, destination) in [("Rome", "Italy"), ("Paris", "France"), ("Lyon", "France"), ("Nice", "France"), ("Milan", "Italy")] {
            context.insert(Trip(name: name, destination: destination))
        }
        try context.save()
        let france = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "France" }, sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(france).map(\.name) == ["Lyon", "Nice", "Paris"])
        var window = france
        (window.fetchOffset, window.fetchLimit) = (1, 1)
        #expect(try context.fetch(window).map(\.name) == ["Nice"])
        #expect(try context.fetchCount(france) == 3)
        #expect(try context.fetchIdentifiers(france).count == 3)
        let sorted = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, order: .reverse)])
        #expect(try context.fetch(sorted).map(\.name) == ["Rome", "Paris", "Nice", "Milan", "Lyon"])
        // Unsaved changes count too.
        context.insert(Trip(name: "Arles", destination: "France"))
        #expect(try context.fetch(france).map(\.name) == ["Arles", "Lyon", "Nice", "Paris"])
        let calls = try #require(configuration.opened.store).calls
        #expect(calls.contains("fetch Trip"))
        #expect(calls.contains("initializeState"))
    }

    @Test func editsAndCascadingDeletesReachTheFile() throws {
        let url = jsonURL()
        let (container, _) = try jsonContainer(url)
        let context = ModelContext(container)
        let trip = Trip(name: "Paris", destination: "France")
        trip.bucketList = [BucketListItem(title: "Louvre", details: "", hasReservation: false, isInPlan: true),
                           BucketListItem(title: "Orsay", details: "", hasReservation: false, isInPlan: false)]
        context.insert(trip)
        context.insert(Trip(name: "Rome", destination: "Italy"))
        try context.save()
        trip.name = "Paris again"
        try context.save()
        let other = ModelContext(container)
        #expect(try other.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Paris again", "Rome"])
        context.delete(trip)
        try context.save()
        let stored = try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: url))
        #expect(stored.map(\.persistentIdentifier.entityName) == ["Trip"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BucketListItem>()) == 0)
    }

    @Test func twoContainersOnOneFileMergeTheirChangesPropertyByProperty() throws {
        let url = jsonURL()
        let (first, _) = try jsonContainer(url)
        let setup = ModelContext(first)
        setup.insert(Trip(name: "Paris", destination: "France"))
        try setup.save()
        let (second, _) = try jsonContainer(url)
        let a = ModelContext(first), b = ModelContext(second)
        let tripA = try #require(try a.fetch(FetchDescriptor<Trip>()).first)
        let tripB = try #require(try b.fetch(FetchDescriptor<Trip>()).first)
        tripA.name = "Paris in spring"
        tripB.destination = "Île-de-France"
        try a.save()
        try b.save()  // a conflict (the file changed since b read it), resolved property by property
        let (third, _) = try jsonContainer(url)
        let trip = try #require(try ModelContext(third).fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.name == "Paris in spring")
        #expect(trip.destination == "Île-de-France")
    }

    @Test func aSaveTheStoreRefusesChangesNothingAndKeepsTheChanges() throws {
        let url = jsonURL()
        let (container, configuration) = try jsonContainer(url)
        let context = ModelContext(container)
        context.insert(Trip(name: "Paris", destination: "France"))
        try context.save()
        let before = try Data(contentsOf: url)
        let store = try #require(configuration.opened.store)
        store.failNextSave = CocoaError(.fileWriteNoPermission)
        context.insert(Trip(name: "Rome", destination: "Italy"))
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try Data(contentsOf: url) == before)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 2)
    }

    @Test func aStoreErrorIsThrownNotShownAsNoModels() throws {
        let url = jsonURL()
        try Data("not json".utf8).write(to: url)
        let (container, _) = try jsonContainer(url)
        #expect(throws: (any Error).self) { try ModelContext(container).fetch(FetchDescriptor<Trip>()) }
    }

    @Test func aSaveWhoseStoreCannotBeReadFailsAndKeepsTheChanges() throws {
        let url = jsonURL()
        let (container, _) = try jsonContainer(url)
        let context = ModelContext(container)
        let trip = Trip(name: "Paris", destination: "France")
        context.insert(trip)
        try context.save()
        trip.name = "Paris in May"
        let good = try Data(contentsOf: url)
        try Data("{ broken".utf8).write(to: url)
        // The save must compare the stored record's version: the read fails, and so does the save.
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try Data(contentsOf: url) == Data("{ broken".utf8))
        #expect(context.hasChanges)
        #expect(trip.name == "Paris in May")
        try good.write(to: url)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Paris in May"])
    }

    @Test func aModelDeletedInTheStoreIsGoneNotAFailure() throws {
        let url = jsonURL()
        let (container, _) = try jsonContainer(url)
        let context = ModelContext(container)
        context.insert(Trip(name: "Paris", destination: "France"))
        context.insert(Trip(name: "Rome", destination: "Italy"))
        try context.save()
        // Another writer removes Rome from the file.
        let stored = try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: url))
        let kept = try stored.filter { snapshot in
            let fields = try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as! [String: Any]
            return (fields["name"] as? [String: Any])?["string"] as? String != "Rome"
        }
        try JSONEncoder().encode(kept).write(to: url)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Paris"])
    }

    @Test func contextsTellTheStoreWhenTheyBeginAndEnd() throws {
        let (container, configuration) = try jsonContainer(jsonURL())
        let store = try #require(configuration.opened.store)
        do {
            let context = ModelContext(container)
            #expect(store.calls.filter { $0 == "initializeState" }.count == 1)
            _ = context.editingState
        }
        #expect(store.calls.filter { $0 == "invalidateState" }.count == 1)
    }

    @Test func eraseEmptiesTheStore() throws {
        let url = jsonURL()
        let (container, _) = try jsonContainer(url)
        let context = ModelContext(container)
        context.insert(Trip(name: "Paris", destination: "France"))
        try context.save()
        try container.erase()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 0)
    }
}

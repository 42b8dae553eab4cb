import Foundation
import Observation
import OpenCoreData
import OpenSwiftData
@testable import trips
import Testing

/// Each ModelContext member, as Apple's documentation describes it.
@Suite struct ModelContextMemberTests {
    func context() throws -> ModelContext {
        ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL())))
    }

    /// A model made by its initializer keeps its values until it is inserted: each property's last value, whether
    /// set through its accessor or by key path (`setValue(forKey:to:)`, `getValue(forKey:)`), read back before
    /// insertion, and the values the store then holds.
    @Test func aDetachedModelsValuesAreItsLastOnesBeforeAndAfterInsertion() throws {
        let context = try context()
        let trip = Trip(name: "First", destination: "A")
        trip.destination = "B"
        trip.setValue(forKey: \.name, to: "Second")
        trip.setValue(forKey: \.destination, to: "C")
        trip.name = "Third"
        #expect(trip.name == "Third" && trip.getValue(forKey: \.destination) == "C")
        context.insert(trip)
        #expect(trip.name == "Third" && trip.destination == "C")
        try context.save()
        let fetched = try ModelContext(context.container).fetch(FetchDescriptor<Trip>())
        #expect(fetched.map(\.name) == ["Third"] && fetched.map(\.destination) == ["C"])
    }

    /// A model starts with no backing data of its own (`init(backingData:)` is given one, the initializer's first
    /// property makes one): what `persistentBackingData` shows is always backing data that holds values, even for a
    /// model whose initializer sets no persisted property, which inserts and saves like any other.
    @Test func aModelsBackingDataIsMadeWhenFirstNeeded() throws {
        let trip = Trip(name: "First", destination: "A")
        #expect(!trip.persistentBackingData._isPlaceholder && trip.persistentBackingData.persistentModelID == nil)
        let marker = Marker()
        #expect(!marker.persistentBackingData._isPlaceholder && marker.modelContext == nil)
        let context = ModelContext(try ModelContainer(for: Marker.self, configurations: ModelConfiguration(url: temporaryStoreURL())))
        context.insert(Marker())
        context.insert(marker)
        try context.save()
        let fetched = try ModelContext(context.container).fetch(FetchDescriptor<Marker>())
        #expect(fetched.count == 2 && fetched.allSatisfy { !$0.persistentBackingData._isPlaceholder && $0.persistentBackingData.persistentModelID != nil })
        #expect(fetched.map(\.persistentModelID).contains(marker.persistentModelID))
    }

    /// Fetched objects start bare (no state of their own): their models are kept beside them, and stay the
    /// same instances when the objects get a state (a change) and when they are fetched again.
    @Test func modelsOfFetchedObjectsAreOneInstancePerObject() throws {
        let writer = try context()
        for n in 0..<5 { writer.insert(Trip(name: "Trip \(n)", destination: "D\(n)")) }
        try writer.save()
        let context = ModelContext(writer.container)
        let first = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        let again = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(first.count == 5 && zip(first, again).allSatisfy { $0 === $1 })
        first[2].destination = "Changed"
        let third = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(zip(first, third).allSatisfy { $0 === $1 })
        #expect(third[2].destination == "Changed" && third[3].destination == "D3")
        #expect(context.model(for: first[4].persistentModelID) as? Trip === first[4])
    }

    @Test func aModelFetchedTwiceIsOneInstanceAndModelForFindsIt() throws {
        let context = try context()
        let trip = Trip(name: "Rome", destination: "Italy")
        context.insert(trip)
        let temporary = trip.persistentModelID
        try context.save()
        let permanent = trip.persistentModelID
        #expect(temporary != permanent)
        #expect(permanent.storeIdentifier != nil && permanent.entityName == "Trip")
        #expect(try context.fetch(FetchDescriptor<Trip>()).first === trip)
        #expect(context.model(for: permanent) as? Trip === trip)
        let registered: Trip? = context.registeredModel(for: permanent)
        #expect(registered === trip)
        let other = ModelContext(context.container)
        let notYet: Trip? = other.registeredModel(for: permanent)
        #expect(notYet == nil)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(permanent))
        #expect(decoded == permanent)
        #expect((other.model(for: decoded) as? Trip)?.name == "Rome")
        #expect(try PersistentIdentifier.identifier(for: permanent.storeIdentifier!, entityName: "Trip", primaryKey: 1) == permanent)
    }

    @Test func changesArraysFollowInsertUpdateAndDelete() throws {
        let context = try context()
        let kept = Trip(name: "Kept", destination: "Here")
        let gone = Trip(name: "Gone", destination: "There")
        context.insert(kept)
        context.insert(gone)
        #expect(Set(context.insertedModelsArray.map(\.persistentModelID)) == [kept.persistentModelID, gone.persistentModelID])
        try context.save()
        #expect(context.insertedModelsArray.isEmpty && !kept.hasChanges)
        kept.destination = "Elsewhere"
        context.delete(gone)
        #expect(kept.hasChanges && gone.isDeleted)
        #expect(context.changedModelsArray.map(\.persistentModelID) == [kept.persistentModelID])
        #expect(context.deletedModelsArray.map(\.persistentModelID) == [gone.persistentModelID])
        context.rollback()
        #expect(kept.destination == "Here" && !gone.isDeleted && !context.hasChanges)
    }

    @Test func saveNotificationsCarryTheSavedIdentifiers() throws {
        let context = try context()
        let trip = Trip(name: "Oslo", destination: "Norway")
        context.insert(trip)
        let events = Recorded<String>()
        let inserted = Recorded<PersistentIdentifier>()
        let will = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in events.append("will") }
        let did = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            events.append("did")
            for id in note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? [] { inserted.append(id) }
        }
        defer { NotificationCenter.default.removeObserver(will); NotificationCenter.default.removeObserver(did) }
        try context.save()
        #expect(events.values == ["will", "did"])
        #expect(inserted.values == [trip.persistentModelID])
    }

    @Test func transactionSavesItsChangesOrRollsThemBack() throws {
        let context = try context()
        try context.transaction { context.insert(Trip(name: "Saved", destination: "A")) }
        #expect(!context.hasChanges)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try context.transaction {
                context.insert(Trip(name: "Dropped", destination: "B"))
                throw Stop()
            }
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Saved"])
    }

    @Test func deleteModelWhereDeletesWhatThePredicateMatchesWithItsCascade() throws {
        let context = try context()
        for name in ["a1", "a2", "b1"] {
            let trip = Trip(name: name, destination: "X")
            trip.bucketList = [BucketListItem(title: name, details: "", hasReservation: false, isInPlan: false)]
            context.insert(trip)
        }
        try context.save()
        try context.delete(model: Trip.self, where: #Predicate { $0.name.starts(with: "a") })
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Trip>()).map(\.name) == ["b1"])
        #expect(try context.fetch(FetchDescriptor<BucketListItem>()).map(\.title) == ["b1"])
        try context.delete(model: Trip.self)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 0)
    }

    @Test func settingEitherSideOfARelationshipSetsTheOther() throws {
        let context = try context()
        let trip = Trip(name: "Lima", destination: "Peru")
        context.insert(trip)
        let item = BucketListItem(title: "Machu Picchu", details: "", hasReservation: true, isInPlan: true)
        item.trip = trip
        #expect(item.modelContext === context)
        #expect(trip.bucketList.map(\.title) == ["Machu Picchu"])
        let stay = LivingAccommodation(address: "Av. 1", placeName: "Casa")
        trip.livingAccommodation = stay
        #expect(stay.trip === trip)
        trip.bucketList.removeAll()
        #expect(item.trip == nil)
    }

    @Test func enumerateVisitsEachModelInBatches() throws {
        let context = try context()
        for i in 0..<7 { context.insert(Trip(name: "t\(i)", destination: "D")) }
        try context.save()
        var names: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 3) { names.append($0.name) }
        #expect(names == (0..<7).map { "t\($0)" })
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) {
            try context.enumerate(FetchDescriptor<Trip>(), batchSize: 3) { $0.destination = "changed" }
        }
        context.rollback()
        try context.enumerate(FetchDescriptor<Trip>(), batchSize: 3, allowEscapingMutations: true) { $0.destination = "changed" }
        #expect(context.changedModelsArray.count == 7)
    }

    @Test func aModelsPropertiesAreObservable() throws {
        let context = try context()
        let trip = Trip(name: "Seen", destination: "A")
        context.insert(trip)
        let changed = LockedFlag()
        withObservationTracking { _ = trip.destination } onChange: { changed.set() }
        trip.destination = "B"
        #expect(changed.value)
    }

    /// A getter tells the registrar of a read only inside `withObservationTracking`: reads outside it (which
    /// the registrar would not record) must not hide the ones inside, before insertion and after a fetch.
    @Test func readsInsideTrackingAreObservedWhateverRanOutside() throws {
        let context = try context()
        let detached = Trip(name: "Detached", destination: "A")
        _ = detached.destination
        let seenDetached = LockedFlag(), unrelated = LockedFlag()
        withObservationTracking { _ = detached.destination } onChange: { seenDetached.set() }
        withObservationTracking { _ = detached.name } onChange: { unrelated.set() }
        detached.destination = "B"
        #expect(seenDetached.value)
        #expect(!unrelated.value)
        context.insert(detached)
        try context.save()
        let fetched = try #require(try ModelContext(context.container).fetch(FetchDescriptor<Trip>()).first)
        _ = fetched.destination
        let seenFetched = LockedFlag()
        withObservationTracking { _ = fetched.destination } onChange: { seenFetched.set() }
        _ = fetched.destination
        fetched.destination = "C"
        #expect(seenFetched.value)
    }

    @Test func authorIsRecordedInHistoryAndUndoManagerUndoes() throws {
        let context = try context()
        context.author = "importer"
        #expect(context.author == "importer")
        context.undoManager = UndoManager()
        let trip = Trip(name: "Undo", destination: "A")
        context.insert(trip)
        try context.save()
        context.processPendingChanges()
        context.undoManager?.removeAllActions()
        trip.destination = "B"
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(trip.destination == "A")
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)
        let result = try context.managedObjectContext.execute(request) as? NSPersistentHistoryResult
        let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
        #expect(transactions.last?.author == "importer")
    }
}

final class Recorded<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [T] = []
    var values: [T] { lock.withLock { list } }
    func append(_ value: T) { lock.withLock { list.append(value) } }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}

/// Batched fetches and the editing state.
@Suite struct BatchedFetchTests {
    @Test func aBatchedFetchReadsItsModelsABatchAtATime() throws {
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL())))
        for i in 0..<23 { context.insert(Trip(name: String(format: "t%02d", i), destination: "D")) }
        #expect(throws: SwiftDataError.includePendingChangesWithBatchSize) {
            try context.fetch(FetchDescriptor<Trip>(), batchSize: 5)
        }
        try context.save()
        let fresh = ModelContext(context.container)
        let descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        let batched = try fresh.fetch(descriptor, batchSize: 5)
        #expect(batched.count == 23)
        #expect(fresh.managedObjectContext.registeredObjects.isEmpty)
        #expect(batched[7].name == "t07")
        #expect(fresh.managedObjectContext.registeredObjects.count == 5)
        #expect(batched.map(\.name) == (0..<23).map { String(format: "t%02d", $0) })
        #expect(batched[7] === batched[7])
        let identifiers = try fresh.fetchIdentifiers(descriptor, batchSize: 4)
        #expect(Array(identifiers) == batched.map(\.persistentModelID))
    }

    @Test func theEditingStateIsTheContextsIdentityAndAuthor() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.author = "sync"
        #expect(context.editingState.author == "sync")
        #expect(context.editingState == context.editingState)
        #expect(context.editingState != ModelContext(container).editingState)
    }
}

/// A model with no persisted property: its initializer sets nothing, so its backing data is made when it is inserted.
@Model final class Marker {
    init() {}
}

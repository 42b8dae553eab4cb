import Foundation
import OpenCoreData
import OpenSwiftData
@testable import trips
import Testing

/// A fetched object shows one model while something keeps that model, and forgets it when nothing does: the object
/// holds its model by the model's unowned count, which keeps its memory but not its life.
@Suite struct ModelLinkTests {
    func savedTrips(_ count: Int) throws -> ModelContainer {
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL())))
        for n in 0..<count { context.insert(Trip(name: "Trip \(n)", destination: "D\(n)")) }
        try context.save()
        return context.container
    }

    /// Weak references to the models of one fetch, which the caller does not keep.
    func weakModels<M: PersistentModel>(_ context: ModelContext, _ descriptor: FetchDescriptor<M>) throws -> [Weak<M>] {
        try context.fetch(descriptor).map { Weak(model: $0) }
    }

    struct Weak<M: AnyObject> { weak var model: M? }

    /// Models nobody keeps go (the link keeps none alive), and their objects then show new models with the same
    /// values; models that are kept stay the ones shown, before and after their objects get a state of their own.
    @Test func aModelNobodyKeepsGoesAndItsObjectShowsANewOne() throws {
        let context = ModelContext(try savedTrips(4))
        let gone = try weakModels(context, FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(gone.count == 4 && gone.allSatisfy { $0.model == nil })
        let kept = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(kept.map(\.name) == ["Trip 0", "Trip 1", "Trip 2", "Trip 3"])
        kept[1].destination = "Changed"
        let again = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(zip(kept, again).allSatisfy { $0 === $1 } && again[1].destination == "Changed")
    }

    /// Backing data handed out by `persistentBackingData` may outlive its model: the model stays the one its object
    /// shows while it lives, goes when nobody keeps it, and the backing data still reads the object's values.
    @Test func backingDataHandedOutOutlivesItsModel() throws {
        let context = ModelContext(try savedTrips(2))
        var trip: Trip? = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))[0]
        let held = trip!.persistentBackingData
        #expect(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))[0] === trip)
        let weak = Weak(model: trip)
        trip = nil
        #expect(weak.model == nil)
        let fetched = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))[0]
        #expect(fetched.name == "Trip 0" && held.getValue(forKey: \.name) == "Trip 0")
        fetched.name = "Renamed"
        #expect(held.getValue(forKey: \.name) == "Renamed")
        #expect(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))[0] === fetched)
    }

    /// A model written without `@Model` is one instance per object while kept, and goes when nobody keeps it.
    @Test func aModelWrittenWithoutTheMacroIsOneInstancePerObject() throws {
        let container = try ModelContainer(for: HandWrittenNote.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let writer = ModelContext(container)
        writer.insert(HandWrittenNote(text: "first"))
        try writer.save()
        let context = ModelContext(container)
        let gone = try weakModels(context, FetchDescriptor<HandWrittenNote>())
        #expect(gone.count == 1 && gone[0].model == nil)
        let note = try context.fetch(FetchDescriptor<HandWrittenNote>())[0]
        let again = try context.fetch(FetchDescriptor<HandWrittenNote>())[0]
        #expect(note.text == "first" && again === note)
    }

    /// A model's `deinit` that fetches its own object gets a new model (the going one is never handed back), and that
    /// one stays the object's.
    @Test func aModelsDeinitThatFetchesItsOwnObjectGetsANewModel() throws {
        let context = ModelContext(try ModelContainer(for: Echo.self, configurations: ModelConfiguration(url: temporaryStoreURL())))
        context.insert(Echo(name: "echo"))
        try context.save()
        var made: Echo?
        var going: ObjectIdentifier?
        Echo.onDeinit = { echo in
            going = ObjectIdentifier(echo)
            made = try? context.fetch(FetchDescriptor<Echo>()).first
        }
        defer { Echo.onDeinit = nil }
        var echo: Echo? = try context.fetch(FetchDescriptor<Echo>()).first
        #expect(echo?.name == "echo")
        echo = nil
        Echo.onDeinit = nil
        let survivor = try #require(made)
        #expect(going != nil && ObjectIdentifier(survivor) != going && survivor.name == "echo")
        #expect(try context.fetch(FetchDescriptor<Echo>()).first === survivor)
    }
}

/// A model whose `deinit` calls ``onDeinit`` (``ModelLinkTests/aModelsDeinitThatFetchesItsOwnObjectGetsANewModel()``
/// alone sets it).
@Model final class Echo {
    var name: String
    init(name: String) { self.name = name }
    nonisolated(unsafe) static var onDeinit: ((Echo) -> Void)?
    deinit { Echo.onDeinit?(self) }
}

/// A model written out by hand, as `PersistentModel` allows without `@Model`.
final class HandWrittenNote: PersistentModel {
    var persistentBackingData: any BackingData<HandWrittenNote>

    required init(backingData: any BackingData<HandWrittenNote>) { persistentBackingData = backingData }

    init(text: String) {
        persistentBackingData = HandWrittenNote.createBackingData()
        self.text = text
    }

    static var schemaMetadata: [Schema.PropertyMetadata] {
        [Schema.PropertyMetadata(name: "text", keypath: \HandWrittenNote.text, defaultValue: nil, metadata: nil)]
    }

    var text: String {
        get { getValue(forKey: \.text) }
        set { setValue(forKey: \.text, to: newValue) }
    }
}

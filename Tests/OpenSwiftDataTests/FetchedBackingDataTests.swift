import Foundation
import OpenCoreData
@testable import OpenSwiftData
@testable import trips
import Testing

/// A fetched `@Model` model starts over a stand-in of its object and gets its storage only when something asks for
/// its backing data or storage: before and after, it reads and writes the same object, and the storage, once made,
/// stays the model's.
@Suite struct FetchedBackingDataTests {
    func fetchedTrip() throws -> (Trip, ModelContext) {
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: temporaryStoreURL())))
        context.insert(Trip(name: "Lisbon", destination: "Portugal"))
        try context.save()
        let reader = ModelContext(context.container)
        return (try reader.fetch(FetchDescriptor<Trip>())[0], reader)
    }

    /// Reads and writes before the storage is made go to the object; asking for the backing data makes the storage
    /// once, over the same object, and the model keeps it.
    @Test func theStorageIsMadeOnceWhenAskedForOverTheSameObject() throws {
        let (trip, context) = try fetchedTrip()
        let identifier = trip.persistentModelID
        trip.destination = "Spain"
        #expect(trip.hasChanges && context.hasChanges && trip.destination == "Spain")
        let storage = try #require(trip._$modelStorage)
        #expect(trip._$modelStorage === storage && trip.persistentBackingData as AnyObject === storage)
        #expect(trip.persistentBackingData.getValue(forKey: \.destination) == "Spain" && trip.persistentModelID == identifier)
        trip.persistentBackingData.setValue(forKey: \.name, to: "Porto")
        #expect(trip.name == "Porto" && trip.modelContext === context)
        try context.save()
        let again = try ModelContext(context.container).fetch(FetchDescriptor<Trip>())[0]
        #expect(again.name == "Porto" && again.destination == "Spain" && again.persistentModelID == identifier)
    }

    /// A fetched model given itself as a related model: the set makes the model's storage while it runs (the
    /// relationship's value needs the related model's object), and the change is saved.
    @Test func aFetchedModelRelatedToItselfIsSaved() throws {
        let context = ModelContext(try ModelContainer(for: Stage.self, configurations: ModelConfiguration(url: temporaryStoreURL())))
        context.insert(Stage(name: "loop"))
        try context.save()
        let reader = ModelContext(context.container)
        let stage = try reader.fetch(FetchDescriptor<Stage>())[0]
        stage.next = stage
        #expect(stage.next === stage && stage.previous === stage && stage._$modelStorage != nil)
        try reader.save()
        let again = try ModelContext(context.container).fetch(FetchDescriptor<Stage>())[0]
        #expect(again.next === again && again.previous === again && again.name == "loop")
    }

    /// Seeded random sequences of renames, links through the inverse to-one pair (`next`/`previous`, a stage linked to
    /// itself included), storages asked for, saves and refetches in a new context, on fetched models, checked at each
    /// step against a reference of names and links: the stand-in and the storage made from it in the middle of any
    /// sequence show and save the same values.
    @Test func randomSequencesOnFetchedModelsMatchAReference() throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        var random = SplitMix(seed)
        let container = try ModelContainer(for: Stage.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let writer = ModelContext(container)
        for i in 0..<6 { writer.insert(Stage(name: "s\(i)")) }
        try writer.save()
        var names = (0..<6).map { "s\($0)" }
        var next: [Int?] = Array(repeating: nil, count: 6)
        func fetched(_ context: ModelContext) throws -> [Stage] {
            let stages = try context.fetch(FetchDescriptor<Stage>())
            return (0..<6).map { i in stages.first { $0.name == names[i] }! }
        }
        var context = ModelContext(container)
        var stages = try fetched(context)
        func index(_ stage: Stage?) -> Int? { stage.flatMap { s in stages.firstIndex { $0 === s } } }
        for step in 0..<120 {
            let i = Int(random.next() % 6)
            switch random.next() % 5 {
            case 0:
                names[i] = "s\(i)-\(step)"
                stages[i].name = names[i]
            case 1:
                let j = random.next() % 3 == 0 ? nil : Int(random.next() % 6)
                if let j, let k = next.firstIndex(where: { $0 == j }) { next[k] = nil }
                next[i] = j
                stages[i].next = j.map { stages[$0] }
            case 2:
                _ = stages[i].persistentBackingData
            case 3:
                try context.save()
                context = ModelContext(container)
                stages = try fetched(context)
            default:
                break
            }
            for k in 0..<6 {
                #expect(stages[k].name == names[k], "seed \(seed), step \(step), stage \(k)")
                #expect(index(stages[k].next) == next[k], "seed \(seed), step \(step), stage \(k)")
                #expect(index(stages[k].previous) == next.firstIndex { $0 == k }, "seed \(seed), step \(step), stage \(k)")
            }
        }
    }

    /// A model written without `@Model` keeps the backing data it is given: a fetch gives it its storage at once.
    @Test func aHandWrittenModelIsGivenItsStorage() throws {
        let container = try ModelContainer(for: HandWrittenNote.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let writer = ModelContext(container)
        writer.insert(HandWrittenNote(text: "note"))
        try writer.save()
        let note = try ModelContext(container).fetch(FetchDescriptor<HandWrittenNote>())[0]
        #expect(!HandWrittenNote._$realizesBackingData && Trip._$realizesBackingData)
        #expect(!note.persistentBackingData._isPlaceholder && note._$modelStorage === note.persistentBackingData as AnyObject)
        note.text = "edited"
        #expect(note.text == "edited" && note.hasChanges)
    }
}

/// A model related to itself through a pair of inverse to-one relationships.
@Model final class Stage {
    var name: String
    @Relationship(inverse: \Stage.previous) var next: Stage?
    var previous: Stage?
    init(name: String) { self.name = name }
}

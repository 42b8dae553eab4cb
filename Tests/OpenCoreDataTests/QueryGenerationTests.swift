import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Query generations: `NSQueryGenerationToken`, `queryGenerationToken`, `setQueryGenerationFrom(_:)`.
@Suite("Query generations")
struct QueryGenerationTests {
    static let all = NSFetchRequest<Products>(entityName: "Products")

    static func save(_ context: NSManagedObjectContext, _ body: () -> Void) throws {
        try context.performAndWait {
            body()
            try context.save()
        }
    }

    @Test func aPinnedContextReadsItsGenerationWhileOthersSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let writer = container.newBackgroundContext()
        try Self.save(writer) { insertProducts(writer, count: 3) }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            #expect(try reader.count(for: Self.all) == 3)
            let token = try #require(reader.queryGenerationToken)
            #expect(token != NSQueryGenerationToken.current)
            try Self.save(writer) {
                insertProducts(writer, count: 2, seed: 9)
                for p in try! writer.fetch(Self.all) { p.name = "renamed" }
            }
            // Another context of the same coordinator saved: the reader still sees its generation.
            #expect(try reader.count(for: Self.all) == 3)
            reader.refreshAllObjects()
            let names = try reader.fetch(Self.all).map(\.name)
            #expect(names.count == 3 && !names.contains("renamed"))
            #expect(reader.queryGenerationToken == token)
            // An unpinned context of the same coordinator sees the new state meanwhile.
            let other = container.newBackgroundContext()
            #expect(try other.performAndWait { try other.count(for: Self.all) } == 5)
            // Unpinned, the reader sees the store as it is.
            try reader.setQueryGenerationFrom(nil)
            #expect(reader.queryGenerationToken == nil)
            reader.refreshAllObjects()
            #expect(try reader.count(for: Self.all) == 5)
            #expect(try reader.fetch(Self.all).allSatisfy { $0.name == "renamed" })
        }
    }

    /// The zoos of each animal, by common name, as the animals' context reads them.
    static func zoosByAnimal(_ animals: [Animal]) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: animals.map { ($0.commonName ?? "?", $0.zoos.map { $0.name ?? "?" }.sorted()) })
    }

    @Test func aPinnedBatchedFetchsFaultsFiredLaterFromATaskReadTheGeneration() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(ZooModel.make())
        let writer = container.newBackgroundContext()
        try Self.save(writer) { _ = ZooModel.seed(writer) }
        let expected = try writer.performAndWait { Self.zoosByAnimal(try writer.fetch(ZooModel.tableRequest())) }
        let reader = container.newBackgroundContext()
        // A batched fetch whose batches prefetch their animals' zoos as their faults fire.
        let ids = try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            let request = ZooModel.tableRequest()
            request.fetchBatchSize = 4
            request.relationshipKeyPathsForPrefetching = ["zoos"]
            let animals = try reader.fetch(request)
            let faults = animals.allSatisfy { $0.isFault }
            #expect(faults)
            return animals.map(\.objectID)
        }
        try Self.save(writer) {
            for zoo in try! writer.fetch(NSFetchRequest<Zoo>(entityName: "Zoo")) { zoo.name = "renamed" }
            for animal in try! writer.fetch(ZooModel.tableRequest()) { animal.commonName = "renamed" }
        }
        // Faults fire later, on the context's queue from a detached task: no scope of the fetch is
        // around them, and the batch's rows and its prefetched zoos still come from the generation.
        let read = await Task.detached {
            await reader.perform { () -> [String: [String]]? in
                // The fetch's own faults, still unfired.
                let animals = ids.map { reader.object(with: $0) as! Animal }
                return animals.allSatisfy(\.isFault) ? Self.zoosByAnimal(animals) : nil
            }
        }.value
        let seen = try #require(read, "the fetch's objects were no longer faults when the task ran")
        #expect(seen == expected)
        #expect(!expected.isEmpty && !seen.values.joined().contains("renamed"))
        // The writer's state, read unpinned, is the renamed one.
        let now = try writer.performAndWait { try writer.fetch(NSFetchRequest<Zoo>(entityName: "Zoo")).map(\.name) }
        #expect(!now.isEmpty && now.allSatisfy { $0 == "renamed" })
    }

    @Test func anotherCoordinatorsSavesAreNotSeenUntilTheContextAdvances() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let first = try store.container()
        let second = try store.container()
        let writer = second.newBackgroundContext()
        try Self.save(writer) { insertProducts(writer, count: 4) }
        let reader = first.newBackgroundContext()
        let aligned = first.newBackgroundContext()
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            #expect(try reader.count(for: Self.all) == 4)
            let token = reader.queryGenerationToken
            try aligned.performAndWait { try aligned.setQueryGenerationFrom(token) }
            try Self.save(writer) { insertProducts(writer, count: 6, seed: 3) }
            #expect(try reader.count(for: Self.all) == 4)
            #expect(try aligned.performAndWait { try aligned.count(for: Self.all) } == 4)
            // Reset moves a pinned context to the current generation at its next read.
            reader.reset()
            #expect(try reader.count(for: Self.all) == 10)
            #expect(reader.queryGenerationToken != nil && reader.queryGenerationToken != token)
            // A save does too.
            try Self.save(writer) { insertProducts(writer, count: 1, seed: 4) }
            #expect(try reader.count(for: Self.all) == 10)
            insertProducts(reader, count: 1, seed: 5)
            try reader.save()
            #expect(try reader.count(for: Self.all) == 12)
        }
    }

    @Test func tokensOfAnotherStoreAreRefusedAndMemoryStoresStayUnpinned() throws {
        let store = TemporaryStore(), otherStore = TemporaryStore()
        defer { store.cleanUp(); otherStore.cleanUp() }
        let context = try store.container().newBackgroundContext()
        let other = try otherStore.container().newBackgroundContext()
        let foreign = try other.performAndWait {
            try other.setQueryGenerationFrom(.current)
            return try #require(other.queryGenerationToken)
        }
        try context.performAndWait {
            #expect { try context.setQueryGenerationFrom(foreign) } throws: { ($0 as NSError).code == NSPersistentStoreOperationError }
            #expect(context.queryGenerationToken == nil)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let memory = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        memory.persistentStoreCoordinator = coordinator
        try memory.performAndWait {
            try memory.setQueryGenerationFrom(.current)
            #expect(memory.queryGenerationToken == nil)
        }
    }

    @Test func aTokenArchivesWhileItsGenerationLives() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().newBackgroundContext()
        try context.performAndWait {
            try context.setQueryGenerationFrom(.current)
            let token = try #require(context.queryGenerationToken)
            for original in [token, NSQueryGenerationToken.current] {
                let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
                let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSQueryGenerationToken.self, from: data))
                #expect(decoded == original)
            }
            #expect(NSManagedObjectContextQueryGenerationKey == "NSManagedObjectContextQueryGenerationKey")
        }
    }
}

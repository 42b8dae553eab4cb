import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// What a to-many relationship holds once read (its members, in order when ordered, compared as a set
/// when not), and the destinations of a prefetched to-one (one object per row, loaded, the registered
/// ones reused): the shapes a relationship slot can take, read through every reader.
@Suite("Relationships: to-many contents and prefetched destinations") struct ToManyContentsTests {
    typealias Zoo = PrefetchTests.Zoo

    /// The objects of `entity` whose to-one `key` is `owner`, as the store has them.
    static func holders(_ context: NSManagedObjectContext, _ entity: String, _ key: String, _ owner: NSManagedObject) throws -> Set<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: "%K == %@", key, owner)
        return Set(try context.fetch(request))
    }

    @Test func aFiredFaultHoldsTheStoresMembersEachOnce() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let classifications = try zoo.context.fetch(zoo.request("Classification", prefetching: nil))
        for c in classifications {
            #expect(c.hasFault(forRelationshipNamed: "animals"))
            let count = zoo.measure { c.mutableSetValue(forKey: "animals").count }
            #expect(count == (10, 1))
            #expect(!c.hasFault(forRelationshipNamed: "animals"))
            let members = try #require(c.value(forKey: "animals") as? NSSet)
            #expect(members.count == 10)
            let objects = Set(members.allObjects.map { $0 as! NSManagedObject })
            #expect(objects == (try Self.holders(zoo.context, "Animal", "classification", c)))
            // One object per member, registered: the same instances each time they are read.
            #expect(objects.allSatisfy { zoo.context.registeredObject(for: $0.objectID) === $0 })
            #expect(Set(c.objectIDs(forRelationshipNamed: "animals")) == Set(objects.map(\.objectID)))
            #expect((c.value(forKey: "animals") as? Set<NSManagedObject>) == objects)
        }
        #expect(classifications.allSatisfy { !$0.hasChanges })
    }

    @Test func orderedMembersKeepTheirOrderThroughChangesAndSaves() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let request = zoo.request("Playlist", prefetching: nil)
        request.predicate = NSPredicate(format: "title == 'Mix'")
        let mix = try #require(try zoo.context.fetch(request).first)
        func titles(_ playlist: NSManagedObject) -> [String] {
            (playlist.value(forKey: "songs") as! NSOrderedSet).array.map { ($0 as! NSManagedObject).string("title")! }
        }
        #expect(titles(mix) == ["c", "a", "b"])
        let songs = mix.mutableOrderedSetValue(forKey: "songs")
        songs.insert(zoo.context.make("Song", ["title": "d"]), at: 1)
        songs.add(songs.object(at: 0))
        #expect(titles(mix) == ["c", "d", "a", "b"])
        songs.removeObject(at: 2)
        #expect(titles(mix) == ["c", "d", "b"])
        try zoo.context.save()
        let again = try Reopened(zoo)
        let reread = try #require(try again.context.fetch(request).first)
        #expect(titles(reread) == ["c", "d", "b"])
    }

    @Test func removingAMemberAndAddingItBackIsNoChange() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let c = try #require(try zoo.context.fetch(zoo.request("Classification", prefetching: nil)).first)
        let animals = c.mutableSetValue(forKey: "animals")
        let members = animals.allObjects.map { $0 as! NSManagedObject }
        animals.remove(members[0])
        animals.remove(members[3])
        #expect(c.isUpdated)
        animals.add(members[3])
        animals.add(members[0])
        // The same members in another order: the relationship is as it was read.
        #expect(!c.isUpdated)
        #expect(c.changedValues().isEmpty)
        #expect(c.set("animals") == Set(members))
    }

    @Test func aLargeToManyFindsItsMembersAsItChanges() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        do {
            let big = zoo.context.make("Classification", ["order": "Chiroptera"])
            for i in 0..<40 { zoo.context.make("Animal", ["commonName": "bat \(i)", "classification": big]) }
            try zoo.context.save()
        }
        let again = try Reopened(zoo)
        let request = zoo.request("Classification", prefetching: nil)
        request.predicate = NSPredicate(format: "order == 'Chiroptera'")
        let big = try #require(try again.context.fetch(request).first)
        let animals = big.mutableSetValue(forKey: "animals")
        var expected = Set(animals.allObjects.map { $0 as! NSManagedObject })
        #expect(expected.count == 40)
        let sorted = expected.sorted { $0.string("commonName")! < $1.string("commonName")! }
        animals.add(sorted[7])
        #expect(animals.count == 40)
        for gone in sorted[0..<5] {
            animals.remove(gone)
            expected.remove(gone)
            #expect(gone.value(forKey: "classification") == nil)
        }
        let newcomers = (0..<2).map { again.context.make("Animal", ["commonName": "new bat \($0)"]) }
        for animal in newcomers { animals.add(animal); expected.insert(animal) }
        animals.add(sorted[2])
        expected.insert(sorted[2])
        #expect(animals.count == 38)
        #expect(big.set("animals") == expected)
        #expect(expected.allSatisfy { $0.value(forKey: "classification") as? NSManagedObject === big })
        #expect(big.mutableSetValue(forKey: "animals").contains(sorted[2]))
        #expect(!big.mutableSetValue(forKey: "animals").contains(sorted[1]))
        try again.context.save()
        let third = try Reopened(zoo)
        let reread = try #require(try third.context.fetch(request).first)
        #expect(Set(reread.set("animals").map { $0.string("commonName")! }) == Set(expected.map { $0.string("commonName")! }))
    }

    @Test func predicatesInMemoryReadToManysAsSets() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let classifications = try zoo.context.fetch(zoo.request("Classification", prefetching: nil))
        let (first, second) = (classifications[0], classifications[1])
        let animal = try #require(first.set("animals").first)
        #expect(NSPredicate(format: "ANY animals == %@", animal).evaluate(with: first))
        #expect(NSPredicate(format: "%@ IN animals", animal).evaluate(with: first))
        #expect(!NSPredicate(format: "%@ IN animals", animal).evaluate(with: second))
        #expect(NSPredicate(format: "animals.@count == 10").evaluate(with: second))
        // Still a fault: evaluating reads it.
        #expect(NSPredicate(format: "ANY animals.commonName BEGINSWITH 'animal'").evaluate(with: classifications[2]))
        // An unsaved move: the fetch judges the changed objects in memory.
        animal.setValue(second, forKey: "classification")
        #expect(NSPredicate(format: "%@ IN animals", animal).evaluate(with: second))
        let request = NSFetchRequest<NSManagedObject>(entityName: "Classification")
        request.predicate = NSPredicate(format: "ANY animals == %@", animal)
        #expect(try zoo.context.fetch(request) == [second])
    }

    @Test func undoBringsBackAToManysMembers() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        zoo.context.undoManager = UndoManager()
        let c = try #require(try zoo.context.fetch(zoo.request("Classification", prefetching: nil)).first)
        let before = c.set("animals")
        zoo.context.processPendingChanges()
        zoo.context.undoManager?.removeAllActions()
        let leaving = Array(before.prefix(3))
        for animal in leaving { c.mutableSetValue(forKey: "animals").remove(animal) }
        zoo.context.processPendingChanges()
        #expect(c.set("animals").count == 7)
        zoo.context.undoManager?.undo()
        #expect(c.set("animals") == before)
        #expect(leaving.allSatisfy { $0.value(forKey: "classification") as? NSManagedObject === c })
    }

    @Test func prefetchedDestinationsAreTheRegisteredObjects() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let classifications = try zoo.context.fetch(zoo.request("Classification", prefetching: nil))
        // One loaded, one a fault that must read its row, one a fault holding its row (as fetched).
        _ = classifications[0].string("order")
        zoo.context.refresh(classifications[1], mergeChanges: false)
        #expect(classifications[1].isFault && classifications[2].isFault)
        #expect(zoo.context.object(with: classifications[1].objectID) === classifications[1])
        let (animals, queries) = try zoo.measure { try zoo.context.fetch(zoo.request("Animal", prefetching: ["classification"])) }
        // The animals, and the one row a registered classification lacked.
        #expect(queries == 2)
        let destinations = Set(animals.map { $0.value(forKey: "classification") as! NSManagedObject })
        #expect(destinations == Set(classifications))
        #expect(destinations.allSatisfy { !$0.isFault })
        #expect(zoo.context.registeredObjects.count == 30 + 3)
    }

    @Test func aPrefetchAfterASaveFindsTheSavedObjects() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let context = zoo.context
        let rodents = context.make("Classification", ["order": "Lagomorpha"])
        for i in 0..<3 { context.make("Animal", ["commonName": "hare \(i)", "classification": rodents]) }
        try context.save()
        let request = zoo.request("Animal", prefetching: ["classification"])
        request.predicate = NSPredicate(format: "commonName BEGINSWITH 'hare'")
        let hares = try context.fetch(request)
        #expect(hares.count == 3)
        #expect(hares.allSatisfy { $0.value(forKey: "classification") as? NSManagedObject === rodents })
        #expect(Set(context.registeredObjects.filter { $0.entity.name == "Classification" }) == [rodents])
    }

    /// 300 animals naming 300 of 400 classifications (every fourth one left out): the destinations'
    /// keys fill most of their range, which is read as a range; one of the named rows is gone.
    @Test func aDenseRangeOfDestinationsIsReadAsOneRange() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = try store.container(RelationshipModel.make()).viewContext
            let classifications = (0..<400).map { context.make("Classification", ["order": "order \($0)"]) }
            for i in 0..<400 where i % 4 != 3 {
                context.make("Animal", ["commonName": "animal \(i)", "classification": classifications[i]])
            }
            try context.save()
        }
        let container = try store.container(RelationshipModel.make())
        let sqlite = try container.persistentStoreCoordinator.sqlite
        try sqlite.write { db in try db.run("DELETE FROM ZCLASSIFICATION WHERE ZORDER = 'order 10'") }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.relationshipKeyPathsForPrefetching = ["classification"]
        var animals: [NSManagedObject] = []
        let sql = try sqlite.recordingSQL { animals = try container.viewContext.fetch(request) }
        #expect(animals.count == 300)
        #expect(sql.count == 2)
        #expect(sql.last == "SELECT t0.Z_PK, t0.Z_OPT, t0.ZFAMILY, t0.ZORDER FROM ZCLASSIFICATION t0 WHERE t0.Z_PK BETWEEN ? AND ? ORDER BY t0.Z_PK")
        let before = sqlite.queryCount
        for animal in animals {
            let name = try #require(animal.string("commonName"))
            let classification = try #require(animal.value(forKey: "classification") as? NSManagedObject)
            if name == "animal 10" {
                // Its row is gone: a fault, as without prefetching.
                #expect(classification.isFault)
            } else {
                #expect(!classification.isFault)
                #expect(classification.string("order") == "order " + name.dropFirst("animal ".count))
            }
        }
        #expect(sqlite.queryCount == before)
        // Only the named classifications were made.
        #expect(container.viewContext.registeredObjects.filter { $0.entity.name == "Classification" }.count == 300)
    }

    @Test func aDenseRangeNeedsManyKeysInOrder() {
        let many = Array(Int64(1)...Int64(SQLiteStore.denseRangeMinimum))
        #expect(SQLiteStore.denseRange(many)! == (1, Int64(SQLiteStore.denseRangeMinimum)))
        #expect(SQLiteStore.denseRange(Array(many.dropLast())) == nil)
        #expect(SQLiteStore.denseRange(many.map { $0 * 5 }) == nil)
        #expect(SQLiteStore.denseRange(many.map { $0 * 3 }) != nil)
        #expect(SQLiteStore.denseRange(many.reversed()) == nil)
        #expect(SQLiteStore.denseRange([1] + many) == nil)
    }
}

/// A zoo's store opened again by a new container: nothing registered.
private struct Reopened {
    let container: NSPersistentContainer
    var context: NSManagedObjectContext { container.viewContext }
    init(_ zoo: PrefetchTests.Zoo) throws { container = try zoo.store.container(RelationshipModel.make()) }
}

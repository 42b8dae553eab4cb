import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// `relationshipKeyPathsForPrefetching`: one query per relationship of the paths, the exact SQL of
/// those queries, the related objects loaded (not faults), batched fetches, the controller, child
/// contexts, pending changes, and bad keys.
@Suite("Relationships: prefetching") struct PrefetchTests {
    /// A store with 3 classifications of 10 animals each, every animal in 2 of 4 zoos, and playlists
    /// of songs in the orders c, a, b (Mix) and z, y (Calm); opened again by a new container, so nothing
    /// is registered.
    struct Zoo {
        let store = TemporaryStore()
        let container: NSPersistentContainer
        var context: NSManagedObjectContext { container.viewContext }
        let sqlite: SQLiteStore

        init() throws {
            do {
                let context = try store.container(RelationshipModel.make()).viewContext
                let orders = ["Primates", "Carnivora", "Rodentia"].map { context.make("Classification", ["order": $0]) }
                let zoos = ["Bronx", "San Diego", "Berlin", "Prague"].map { context.make("Zoo", ["name": $0]) }
                for i in 0..<30 {
                    let animal = context.make("Animal", ["commonName": "animal \(i)", "classification": orders[i % 3]])
                    animal.mutableSetValue(forKey: "zoos").addObjects(from: [zoos[i % 4], zoos[(i + 1) % 4]])
                }
                let playlist = context.make("Playlist", ["title": "Mix"])
                for title in ["c", "a", "b"] { playlist.mutableOrderedSetValue(forKey: "songs").add(context.make("Song", ["title": title])) }
                let calm = context.make("Playlist", ["title": "Calm"])
                for title in ["z", "y"] { calm.mutableOrderedSetValue(forKey: "songs").add(context.make("Song", ["title": title])) }
                try context.save()
            }
            container = try store.container(RelationshipModel.make())
            sqlite = try container.persistentStoreCoordinator.sqlite
        }

        func request(_ entity: String, prefetching paths: [String]?) -> NSFetchRequest<NSManagedObject> {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.sortDescriptors = [NSSortDescriptor(key: entity == "Zoo" ? "name" : entity == "Classification" ? "order" : entity == "Animal" ? "commonName" : "title", ascending: true)]
            request.relationshipKeyPathsForPrefetching = paths
            return request
        }

        /// The queries `body` runs.
        func queries(_ body: () throws -> Void) rethrows -> Int {
            try measure(body).queries
        }

        /// What `body` returns, and the queries it ran.
        func measure<T>(_ body: () throws -> T) rethrows -> (value: T, queries: Int) {
            let before = sqlite.queryCount
            let value = try body()
            return (value, sqlite.queryCount - before)
        }
    }

    static let animalColumns = "t0.Z_PK, t0.Z_OPT, t0.ZCLASSIFICATION, t0.ZCOMMONNAME, t0.ZHABITAT"
    /// Animal i lives in zoos i % 4 and (i + 1) % 4.
    static let animalsPerZoo = ["Bronx": 15, "San Diego": 16, "Berlin": 15, "Prague": 14]
    /// The keys of a prefetch, one JSON array joined: `k.key` is each key's position, which ends each row.
    static let keys = "json_each(?) k"

    @Test func aToOneIsOneQueryForAllObjects() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        var animals: [NSManagedObject] = []
        let sql = try zoo.sqlite.recordingSQL { animals = try zoo.context.fetch(zoo.request("Animal", prefetching: ["classification"])) }
        #expect(animals.count == 30)
        #expect(sql == ["SELECT \(Self.animalColumns) FROM ZANIMAL t0 ORDER BY t0.ZCOMMONNAME, t0.Z_PK",
                        "SELECT t0.Z_PK, t0.Z_OPT, t0.ZFAMILY, t0.ZORDER, k.key FROM \(Self.keys) JOIN ZCLASSIFICATION t0 ON t0.Z_PK = k.value"])
        let orders = try zoo.queries {
            for animal in animals {
                let classification = try #require(animal.value(forKey: "classification") as? NSManagedObject)
                #expect(!classification.isFault)
                #expect(classification.string("order") != nil)
            }
        }
        #expect(orders == 0)
        // Without prefetching, the same reads cost a query per classification.
        let plain = try Zoo()
        defer { plain.store.cleanUp() }
        let unprefetched = try plain.context.fetch(plain.request("Animal", prefetching: nil))
        #expect(plain.queries { for animal in unprefetched { _ = (animal.value(forKey: "classification") as? NSManagedObject)?.string("order") } } == 3)
    }

    @Test func aToManyIsOneQueryAndItsSetsAreRead() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        var classifications: [NSManagedObject] = []
        let sql = try zoo.sqlite.recordingSQL { classifications = try zoo.context.fetch(zoo.request("Classification", prefetching: ["animals"])) }
        #expect(sql.count == 2)
        #expect(sql.last == "SELECT \(Self.animalColumns), k.key FROM \(Self.keys) JOIN ZANIMAL t0 ON t0.ZCLASSIFICATION = k.value")
        let cost = zoo.queries {
            for c in classifications {
                let animals = c.set("animals")
                #expect(animals.count == 10)
                #expect(animals.allSatisfy { !$0.isFault && $0.string("commonName") != nil })
                // The inverse agrees.
                #expect(animals.allSatisfy { ($0.value(forKey: "classification") as? NSManagedObject) === c })
            }
        }
        #expect(cost == 0)
        #expect(classifications.allSatisfy { !$0.hasChanges })
    }

    @Test func aManyToManyJoinsItsJoinTable() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        var animals: [NSManagedObject] = []
        let sql = try zoo.sqlite.recordingSQL { animals = try zoo.context.fetch(zoo.request("Animal", prefetching: ["zoos"])) }
        #expect(sql.last == "SELECT t0.Z_PK, t0.Z_OPT, t0.ZNAME, k.key FROM \(Self.keys) JOIN Z_1ZOOS j ON j.Z_1ANIMALS = k.value JOIN ZZOO t0 ON t0.Z_PK = j.Z_12ZOOS")
        #expect(sql.count == 2)
        let cost = zoo.queries {
            for animal in animals {
                let zoos = animal.set("zoos")
                #expect(zoos.count == 2)
                #expect(zoos.allSatisfy { !$0.isFault })
            }
        }
        #expect(cost == 0)
        // From the other side.
        var zoos: [NSManagedObject] = []
        let back = try zoo.sqlite.recordingSQL { zoos = try zoo.context.fetch(zoo.request("Zoo", prefetching: ["animals"])) }
        #expect(back.last == "SELECT \(Self.animalColumns), k.key FROM \(Self.keys) JOIN Z_1ZOOS j ON j.Z_12ZOOS = k.value JOIN ZANIMAL t0 ON t0.Z_PK = j.Z_1ANIMALS")
        let counts = zoo.measure { zoos.map { $0.set("animals").count } }
        #expect(counts == ([15, 15, 14, 16], 0), "Berlin, Bronx, Prague, San Diego")
    }

    @Test func nestedPathsCostOneQueryPerRelationship() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        var animals: [NSManagedObject] = []
        let sql = try zoo.sqlite.recordingSQL {
            animals = try zoo.context.fetch(zoo.request("Animal", prefetching: ["classification.animals", "zoos.animals", "zoos", "classification"]))
        }
        // The fetch, classification, its animals, zoos, their animals: shared prefixes run once.
        #expect(sql.count == 5)
        #expect(sql[1].hasSuffix("JOIN ZCLASSIFICATION t0 ON t0.Z_PK = k.value"))
        #expect(sql[2].hasSuffix("JOIN ZANIMAL t0 ON t0.ZCLASSIFICATION = k.value"))
        #expect(sql[3].hasSuffix("JOIN Z_1ZOOS j ON j.Z_1ANIMALS = k.value JOIN ZZOO t0 ON t0.Z_PK = j.Z_12ZOOS"))
        #expect(sql[4].hasSuffix("JOIN Z_1ZOOS j ON j.Z_12ZOOS = k.value JOIN ZANIMAL t0 ON t0.Z_PK = j.Z_1ANIMALS"))
        let cost = try zoo.queries {
            for animal in animals {
                let c = try #require(animal.value(forKey: "classification") as? NSManagedObject)
                #expect(c.set("animals").count == 10)
                for z in animal.set("zoos") { #expect(z.set("animals").count == Self.animalsPerZoo[z.string("name")!]) }
            }
        }
        #expect(cost == 0)
    }

    @Test func anOrderedToManyKeepsItsOrder() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let songColumns = "t0.Z_PK, t0.Z_OPT, t0.ZPLAYLIST, t0.Z_FOK_PLAYLIST, t0.ZTITLE"
        var playlists: [NSManagedObject] = []
        let sql = try zoo.sqlite.recordingSQL { playlists = try zoo.context.fetch(zoo.request("Playlist", prefetching: ["songs"])) }
        #expect(sql.last == "SELECT \(songColumns), k.key FROM \(Self.keys) JOIN ZSONG t0 ON t0.ZPLAYLIST = k.value ORDER BY k.key, t0.Z_FOK_PLAYLIST")
        func titles(_ playlist: NSManagedObject) -> [String] {
            (playlist.value(forKey: "songs") as! NSOrderedSet).array.map { ($0 as! NSManagedObject).string("title")! }
        }
        #expect(zoo.measure { playlists.map(titles) } == ([["z", "y"], ["c", "a", "b"]], 0))
        // One owner: one bound key.
        let mix = zoo.request("Playlist", prefetching: ["songs"])
        mix.predicate = NSPredicate(format: "title == %@", "Mix")
        let other = zoo.container.newBackgroundContext()
        try other.performAndWait {
            var one: [NSManagedObject] = []
            let sql = try zoo.sqlite.recordingSQL { one = try other.fetch(mix) }
            #expect(sql.last == "SELECT \(songColumns) FROM ZSONG t0 WHERE t0.ZPLAYLIST IN (?) ORDER BY t0.ZPLAYLIST, t0.Z_FOK_PLAYLIST, t0.Z_PK")
            #expect(zoo.measure { one.map(titles) } == ([["c", "a", "b"]], 0))
        }
    }

    @Test func withoutJSONTheKeysGoInChunksOf500() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        zoo.sqlite.usesJSONKeyLists = false
        defer { zoo.sqlite.usesJSONKeyLists = true }
        var animals: [NSManagedObject] = []
        let sql = try zoo.sqlite.recordingSQL { animals = try zoo.context.fetch(zoo.request("Animal", prefetching: ["classification", "zoos"])) }
        #expect(sql[1] == "SELECT t0.Z_PK, t0.Z_OPT, t0.ZFAMILY, t0.ZORDER FROM ZCLASSIFICATION t0 WHERE t0.Z_PK IN (?, ?, ?)")
        #expect(sql[2].contains("WHERE j.Z_1ANIMALS IN (\(Array(repeating: "?", count: 30).joined(separator: ", "))) ORDER BY"))
        #expect(zoo.measure { animals.allSatisfy { $0.set("zoos").count == 2 } } == (true, 0))
        #expect(SQLiteKeyList(Array(1...1001), json: false).chunks.map(\.arguments.count) == [500, 500, 1])
        #expect(SQLiteKeyList(Array(1...1001), json: true).chunks.map(\.arguments.count) == [1])
        #expect(SQLiteKeyList([7, -12, 0, Int64.max, Int64.min], json: true).chunks[0].arguments
                == [.string("[7,-12,0,9223372036854775807,-9223372036854775808]")])
    }

    @Test func aBatchedFetchPrefetchesEachBatchAsItLoads() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let request = zoo.request("Animal", prefetching: ["classification", "zoos"])
        request.fetchBatchSize = 10
        var animals: [NSManagedObject] = []
        // The keys only: counted, the first batch's, then every key in the background (ProgressiveBatchTests).
        #expect(try zoo.queries { animals = try zoo.context.fetch(request); _ = animals.last?.objectID } == 3)
        var sql: [String] = []
        sql = zoo.sqlite.recordingSQL { _ = animals[0].string("commonName") }
        #expect(sql.count == 3, "the batch's rows, its classifications, its zoos")
        #expect(sql[0] == "SELECT \(Self.animalColumns), k.key FROM \(Self.keys) JOIN ZANIMAL t0 ON t0.Z_PK = k.value")
        #expect(zoo.measure {
            animals[0..<10].allSatisfy { ($0.value(forKey: "classification") as? NSManagedObject)?.isFault == false && $0.set("zoos").count == 2 }
        } == (true, 0))
        // The second batch: its rows and its zoos; its classifications are all registered with values.
        sql = zoo.sqlite.recordingSQL { _ = animals[15].string("commonName") }
        #expect(sql.count == 2)
        #expect(zoo.measure { animals[10..<20].allSatisfy { $0.set("zoos").count == 2 } } == (true, 0))
    }

    /// Beyond Core Data: the to-many faults of a batch's objects fire together (one query per batch).
    @Test func toManyFaultsOfABatchFireTogether() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let request = zoo.request("Animal", prefetching: nil)
        request.fetchBatchSize = 10
        let animals = try zoo.context.fetch(request)
        _ = animals.last?.objectID  // the key reader's query is done before queries are counted below
        _ = animals[0].string("commonName")
        var sql: [String] = []
        sql = zoo.sqlite.recordingSQL { #expect(animals[3].set("zoos").count == 2) }
        #expect(sql == ["SELECT j.Z_12ZOOS, j.Z_1ANIMALS FROM Z_1ZOOS j WHERE j.Z_1ANIMALS IN (SELECT value FROM json_each(?)) ORDER BY j.Z_1ANIMALS, j.Z_12ZOOS"])
        // The rest of the batch: no query (zoos themselves are faults: their names cost one query).
        #expect(zoo.measure { animals[0..<10].map { $0.set("zoos").count } } == (Array(repeating: 2, count: 10), 0))
        // The same as each read alone.
        let plain = try Zoo()
        defer { plain.store.cleanUp() }
        let one = try plain.context.fetch(plain.request("Animal", prefetching: nil))
        let names = { (zoos: Set<NSManagedObject>) in Set(zoos.map { $0.string("name")! }) }
        #expect(animals[0..<10].map { names($0.set("zoos")) } == one[0..<10].map { names($0.set("zoos")) })
        // The next batch: its rows, then its zoos in one query.
        _ = animals[10].string("commonName")
        #expect(zoo.measure { animals[10..<20].map { $0.set("zoos").count } } == (Array(repeating: 2, count: 10), 1))
        // Objects of a fetch without fetchBatchSize: one query per fault, as in Core Data.
        #expect(plain.measure { one[20..<25].map { $0.set("zoos").count } } == (Array(repeating: 2, count: 5), 5))
        // Classification → animals (a to-many whose inverse is a to-one), batched too.
        let byOrder = zoo.request("Classification", prefetching: nil)
        byOrder.fetchBatchSize = 3
        let classifications = try zoo.context.fetch(byOrder)
        _ = classifications[0].string("order")
        #expect(zoo.measure { classifications.map { $0.set("animals").count } } == ([10, 10, 10], 1))
    }

    @Test func theControllerPrefetchesThroughTheSameFetch() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let controller = NSFetchedResultsController(fetchRequest: zoo.request("Animal", prefetching: ["classification"]),
                                                    managedObjectContext: zoo.context, sectionNameKeyPath: nil, cacheName: nil)
        #expect(try zoo.queries { try controller.performFetch() } == 2)
        let objects = try #require(controller.fetchedObjects)
        #expect(zoo.measure { objects.allSatisfy { ($0.value(forKey: "classification") as? NSManagedObject)?.isFault == false } } == (true, 0))
        // A windowed controller: the prefetched classifications stay registered.
        let request = zoo.request("Animal", prefetching: ["classification"])
        request.fetchLimit = 5
        let other = zoo.container.newBackgroundContext()
        try other.performAndWait {
            let windowed = NSFetchedResultsController(fetchRequest: request, managedObjectContext: other, sectionNameKeyPath: nil, cacheName: nil)
            try windowed.performFetch()
            let shown = try #require(windowed.fetchedObjects)
            #expect(shown.count == 5)
            #expect(zoo.measure { shown.allSatisfy { ($0.value(forKey: "classification") as? NSManagedObject)?.string("order") != nil } } == (true, 0))
        }
    }

    @Test func pendingChangesAndChildContexts() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        let context = zoo.context
        let primates = try context.fetch(zoo.request("Classification", prefetching: nil)).first { $0.string("order") == "Primates" }!
        let newcomer = context.make("Animal", ["commonName": "aardvark", "classification": primates])
        var animals: [NSManagedObject] = []
        #expect(try zoo.queries { animals = try context.fetch(zoo.request("Animal", prefetching: ["classification", "zoos"])) } == 2,
                "the fetch with pending changes, then zoos; the classifications are registered with values")
        #expect(animals.count == 31 && animals.contains(newcomer))
        #expect(zoo.measure { animals.allSatisfy { $0.set("zoos").count == ($0 === newcomer ? 0 : 2) } } == (true, 0))

        // A child context: its parent prefetches, the child reads from the parent's memory.
        let fresh = try Zoo()
        defer { fresh.store.cleanUp() }
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = fresh.context
        try child.performAndWait {
            var children: [NSManagedObject] = []
            let cost = try fresh.queries { children = try child.fetch(fresh.request("Animal", prefetching: ["classification", "zoos"])) }
            #expect(cost == 3)
            #expect(fresh.measure {
                children.allSatisfy { ($0.value(forKey: "classification") as? NSManagedObject)?.isFault == false && $0.set("zoos").count == 2 }
            } == (true, 0))
        }
    }

    /// Every shape of relationship: subentity destinations (their rows read by `Z_ENT`), a to-one to a
    /// subentity, a self-inverse many-to-many, a to-many without inverse, an ordered many-to-many.
    @Test func everyShapePrefetches() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try RelationshipShapesFetchTests.people(store)
        let container = try store.container(RelationshipShapesTests.model())
        let context = container.viewContext
        let sqlite = try container.persistentStoreCoordinator.sqlite
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.relationshipKeyPathsForPrefetching = ["pets", "favorite", "friends", "route", "bookmarks", "spouse"]
        var people: [NSManagedObject] = []
        let sql = try sqlite.recordingSQL { people = try context.fetch(request) }
        // The fetch, pets, friends, route, bookmarks; favorite and spouse name objects already loaded.
        #expect(sql.count == 5)
        let before = sqlite.queryCount
        let (ann, bob, cy) = (people[0], people[1], people[2])
        #expect(bob.entity.name == "Employee")
        #expect(Set(bob.set("pets").map { "\($0.entity.name!) \($0.string("name")!)" }) == ["Dog Rex", "Cat Tom"])
        #expect(bob.set("pets").allSatisfy { !$0.isFault })
        let favorite = try #require(bob.value(forKey: "favorite") as? NSManagedObject)
        #expect(favorite.entity.name == "Cat" && favorite.string("color") == "grey")
        #expect(ann.set("friends") == [bob, cy] && bob.set("friends") == [ann] && cy.set("friends") == [ann])
        #expect(Set(ann.set("bookmarks").compactMap { $0.string("name") }) == ["Paris", "Rome"])
        let route = (bob.value(forKey: "route") as! NSOrderedSet).array.compactMap { ($0 as? NSManagedObject)?.string("name") }
        #expect(route == ["Rome", "Oslo", "Paris"])
        #expect((cy.value(forKey: "route") as! NSOrderedSet).count == 1)
        #expect((cy.value(forKey: "spouse") as? NSManagedObject) === bob)
        #expect(sqlite.queryCount == before)
    }

    @Test func badKeysAreClearErrors() throws {
        let zoo = try Zoo()
        defer { zoo.store.cleanUp() }
        func message(_ paths: [String]) -> String? {
            do {
                _ = try zoo.context.fetch(zoo.request("Animal", prefetching: paths))
                return nil
            } catch let error as CoreDataError {
                #expect(error.code == NSCoreDataError)
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message(["keepers"]) == "keypath keepers not found in entity Animal (relationshipKeyPathsForPrefetching): Animal has no property keepers")
        #expect(message(["classification.genus"]) == "keypath classification.genus not found in entity Animal (relationshipKeyPathsForPrefetching): Classification has no property genus")
        #expect(message(["zoos.animals.zookeeper"]) == "keypath zoos.animals.zookeeper not found in entity Animal (relationshipKeyPathsForPrefetching): Animal has no property zookeeper")
        #expect(message(["commonName"]) == "keypath commonName of entity Animal cannot be prefetched (relationshipKeyPathsForPrefetching): commonName is an attribute of Animal, not a relationship")
        #expect(message(["classification.order"]) == "keypath classification.order of entity Animal cannot be prefetched (relationshipKeyPathsForPrefetching): order is an attribute of Classification, not a relationship")
        #expect(message(["classification."]) == "keypath classification. not found in entity Animal (relationshipKeyPathsForPrefetching): Classification has no property named by an empty key")
        // ID and count results ignore prefetching, as in Core Data.
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Animal")
        ids.resultType = .managedObjectIDResultType
        ids.relationshipKeyPathsForPrefetching = ["classification"]
        #expect(try zoo.measure { try zoo.context.fetch(ids).count } == (30, 1))
    }
}

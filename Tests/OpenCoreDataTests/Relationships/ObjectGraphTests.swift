import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

@Suite("Relationships: the object graph") struct ObjectGraphTests {
    @Test func inversesAreKeptInMemoryBeforeAnySave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(RelationshipModel.make()).viewContext
        let monkeys = context.make("Classification", ["order": "Primates"])
        let cats = context.make("Classification", ["order": "Carnivora"])
        let animal = context.make("Animal", ["commonName": "Capuchin"])
        animal.setValue(monkeys, forKey: "classification")
        #expect(monkeys.set("animals") == [animal])
        animal.setValue(cats, forKey: "classification")
        #expect(monkeys.set("animals").isEmpty)
        #expect(cats.set("animals") == [animal])
        // From the to-many side: the animal moves, its old classification lets go.
        monkeys.mutableSetValue(forKey: "animals").add(animal)
        #expect((animal.value(forKey: "classification") as? NSManagedObject) === monkeys)
        #expect(cats.set("animals").isEmpty)
        // Many-to-many.
        let zoo = context.make("Zoo", ["name": "Bronx"])
        animal.mutableSetValue(forKey: "zoos").add(zoo)
        #expect(zoo.set("animals") == [animal])
        zoo.mutableSetValue(forKey: "animals").remove(animal)
        #expect(animal.set("zoos").isEmpty)
        animal.setValue(nil, forKey: "classification")
        #expect(monkeys.set("animals").isEmpty)
    }

    @Test func theGraphSurvivesAReopenFromBothSides() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = try store.container(RelationshipModel.make()).viewContext
            let primates = context.make("Classification", ["order": "Primates"])
            let bronx = context.make("Zoo", ["name": "Bronx"]), sd = context.make("Zoo", ["name": "San Diego"])
            for name in ["Capuchin", "Gorilla"] {
                let a = context.make("Animal", ["commonName": name, "classification": primates])
                a.mutableSetValue(forKey: "zoos").addObjects(from: [bronx, sd])
            }
            let playlist = context.make("Playlist", ["title": "Mix"])
            for title in ["c", "a", "b"] { playlist.mutableOrderedSetValue(forKey: "songs").add(context.make("Song", ["title": title])) }
            try context.save()
            #expect(!primates.objectID.isTemporaryID)
        }
        let context = try store.container(RelationshipModel.make()).viewContext
        let animals = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
        #expect(animals.count == 2)
        for a in animals {
            let c = try #require(a.value(forKey: "classification") as? NSManagedObject)
            #expect(c.string("order") == "Primates")
            #expect(Set(a.set("zoos").compactMap { $0.string("name") }) == ["Bronx", "San Diego"])
        }
        let zoos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo"))
        for z in zoos { #expect(z.set("animals") == Set(animals)) }
        let c = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Classification"))[0]
        #expect(c.set("animals") == Set(animals))
        let playlist = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Playlist"))[0]
        let songs = (playlist.value(forKey: "songs") as! NSOrderedSet).array.map { ($0 as! NSManagedObject).string("title")! }
        #expect(songs == ["c", "a", "b"])
    }

    @Test func schemaFollowsCoreDatasLayout() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(RelationshipModel.make())
        let sqlite = try container.persistentStoreCoordinator.sqlite
        var names: [String] = []
        try sqlite.read { db in try db.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name") { names.append($0.value(0, as: .stringAttributeType).anyValue as! String) } }
        // Entities are numbered in name order: Animal 1, Classification 2, …, Zoo 12.
        #expect(names.contains("ZANIMAL_ZCLASSIFICATION_INDEX"))
        #expect(names.contains("Z_1ZOOS"))
        var columns: [String] = []
        try sqlite.read { db in try db.query("PRAGMA table_info(Z_1ZOOS)") { columns.append($0.value(1, as: .stringAttributeType).anyValue as! String) } }
        #expect(columns == ["Z_1ANIMALS", "Z_12ZOOS"])
        var songColumns: [String] = []
        try sqlite.read { db in try db.query("PRAGMA table_info(ZSONG)") { songColumns.append($0.value(1, as: .stringAttributeType).anyValue as! String) } }
        #expect(songColumns == ["Z_PK", "Z_ENT", "Z_OPT", "ZPLAYLIST", "Z_FOK_PLAYLIST", "ZTITLE"])
        var classificationColumns: [String] = []
        try sqlite.read { db in try db.query("PRAGMA table_info(ZCLASSIFICATION)") { classificationColumns.append($0.value(1, as: .stringAttributeType).anyValue as! String) } }
        #expect(classificationColumns == ["Z_PK", "Z_ENT", "Z_OPT", "ZFAMILY", "ZORDER"])
    }

    @Test func aToManyFaultCostsOneQuery() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = try store.container(RelationshipModel.make()).viewContext
            let c = context.make("Classification", ["order": "Primates"])
            for i in 0..<20 { context.make("Animal", ["commonName": "a\(i)", "classification": c]) }
            try context.save()
        }
        let container = try store.container(RelationshipModel.make())
        let context = container.viewContext
        let sqlite = try container.persistentStoreCoordinator.sqlite
        let c = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Classification"))[0]
        _ = c.string("order")
        let before = sqlite.queryCount
        #expect(c.hasFault(forRelationshipNamed: "animals"))
        let animals = c.set("animals")
        #expect(!c.hasFault(forRelationshipNamed: "animals"))
        #expect(Set(c.objectIDs(forRelationshipNamed: "animals")) == Set(animals.map(\.objectID)))
        #expect(animals.count == 20)
        #expect(sqlite.queryCount == before + 1)
        _ = c.set("animals")
        #expect(sqlite.queryCount == before + 1)
    }

    @Test func changesToRelationshipsAreChangedValues() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(RelationshipModel.make()).viewContext
        let primates = context.make("Classification", ["order": "Primates"])
        let cats = context.make("Classification", ["order": "Carnivora"])
        let animal = context.make("Animal", ["commonName": "Capuchin", "classification": primates])
        try context.save()
        animal.setValue(cats, forKey: "classification")
        #expect((animal.changedValues()["classification"] as? NSManagedObject) === cats)
        #expect((animal.committedValues(forKeys: ["classification"])["classification"] as? NSManagedObject) === primates)
        #expect(primates.isUpdated && cats.isUpdated)
        #expect((cats.changedValues()["animals"] as? NSSet)?.count == 1)
        context.rollback()
        #expect((animal.value(forKey: "classification") as? NSManagedObject) === primates)
        #expect(primates.set("animals") == [animal])
        #expect(cats.set("animals").isEmpty)
    }
}

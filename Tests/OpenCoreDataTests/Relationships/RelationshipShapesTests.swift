import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Relationships of every shape survive a save and a reopen: one-to-one, a many-to-many that is its own
/// inverse, a to-many without an inverse, destinations with subentities, inherited relationships, an
/// ordered many-to-many.
@Suite("Relationships: shapes") struct RelationshipShapesTests {
    static func model() -> NSManagedObjectModel {
        let string = { (name: String) in NSAttributeDescription(name: name, type: .stringAttributeType) }
        let dog = NSEntityDescription(name: "Dog", properties: [string("breed")])
        let cat = NSEntityDescription(name: "Cat", properties: [string("color")])
        let pet = NSEntityDescription(name: "Pet", properties: [
            string("name"),
            NSRelationshipDescription(name: "person", destination: "Person", inverse: "pets"),
        ], subentities: [dog, cat], isAbstract: true)
        let employee = NSEntityDescription(name: "Employee", properties: [string("title")])
        let person = NSEntityDescription(name: "Person", properties: [
            string("name"),
            NSRelationshipDescription(name: "spouse", destination: "Person", inverse: "spouse"),
            NSRelationshipDescription(name: "friends", destination: "Person", inverse: "friends", toMany: true),
            NSRelationshipDescription(name: "bookmarks", destination: "Place", inverse: nil, toMany: true),
            NSRelationshipDescription(name: "pets", destination: "Pet", inverse: "person", toMany: true),
            NSRelationshipDescription(name: "favorite", destination: "Pet", inverse: nil),
            NSRelationshipDescription(name: "route", destination: "Place", inverse: "travellers", toMany: true, ordered: true),
        ], subentities: [employee])
        let place = NSEntityDescription(name: "Place", properties: [
            string("name"),
            NSRelationshipDescription(name: "travellers", destination: "Person", inverse: "route", toMany: true),
        ])
        return NSManagedObjectModel(entities: [pet, person, place])
    }

    @Test func everyShapeSurvivesAReopen() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = try store.container(Self.model()).viewContext
            let ann = context.make("Person", ["name": "Ann"]), bob = context.make("Employee", ["name": "Bob", "title": "CEO"])
            let cy = context.make("Person", ["name": "Cy"])
            ann.setValue(bob, forKey: "spouse")
            #expect((bob.value(forKey: "spouse") as? NSManagedObject) === ann)
            // Cy marries Bob: Ann is single again (one-to-one keeps both sides).
            cy.setValue(bob, forKey: "spouse")
            #expect(ann.value(forKey: "spouse") == nil)
            ann.mutableSetValue(forKey: "friends").addObjects(from: [bob, cy])
            #expect(bob.set("friends") == [ann] && cy.set("friends") == [ann])
            let paris = context.make("Place", ["name": "Paris"]), rome = context.make("Place", ["name": "Rome"]), oslo = context.make("Place", ["name": "Oslo"])
            ann.mutableSetValue(forKey: "bookmarks").addObjects(from: [paris, rome])
            let rex = context.make("Dog", ["name": "Rex", "breed": "collie"]), tom = context.make("Cat", ["name": "Tom", "color": "grey"])
            bob.mutableSetValue(forKey: "pets").addObjects(from: [rex, tom])
            bob.setValue(tom, forKey: "favorite")
            let route = bob.mutableOrderedSetValue(forKey: "route")
            route.add(rome)
            route.add(oslo)
            route.insert(paris, at: 0)
            #expect(rome.set("travellers") == [bob])
            try context.save()
        }
        let context = try store.container(Self.model()).viewContext
        func person(_ name: String) throws -> NSManagedObject {
            let r = NSFetchRequest<NSManagedObject>(entityName: "Person")
            r.predicate = NSPredicate(format: "name == %@", name)
            return try #require(try context.fetch(r).first)
        }
        let ann = try person("Ann"), bob = try person("Bob"), cy = try person("Cy")
        #expect(bob.entity.name == "Employee")
        #expect(ann.value(forKey: "spouse") == nil)
        #expect((bob.value(forKey: "spouse") as? NSManagedObject) === cy && (cy.value(forKey: "spouse") as? NSManagedObject) === bob)
        #expect(ann.set("friends") == [bob, cy] && bob.set("friends") == [ann])
        #expect(Set(ann.set("bookmarks").compactMap { $0.string("name") }) == ["Paris", "Rome"])
        let pets = bob.set("pets")
        #expect(Set(pets.compactMap { $0.entity.name }) == ["Dog", "Cat"])
        // The to-one's entity column names the subentity: the fault is a Cat before it fires.
        let favorite = try #require(bob.value(forKey: "favorite") as? NSManagedObject)
        #expect(favorite.entity.name == "Cat" && favorite.string("color") == "grey")
        let route = (bob.value(forKey: "route") as! NSOrderedSet).array.compactMap { ($0 as? NSManagedObject)?.string("name") }
        #expect(route == ["Paris", "Rome", "Oslo"])
        let oslo = try #require(context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place")).first { $0.string("name") == "Oslo" })
        #expect(oslo.set("travellers") == [bob])
    }

    @Test func joinTablesAndEntityColumnsUseCoreDatasNames() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let sqlite = try container.persistentStoreCoordinator.sqlite
        func columns(_ table: String) throws -> [String] {
            var names: [String] = []
            try sqlite.read { db in try db.query("PRAGMA table_info(\(table))") { names.append($0.value(1, as: .stringAttributeType).anyValue as! String) } }
            return names
        }
        // Entities as Core Data numbers them: Person 1, Employee 2, Pet 3, Cat 4, Dog 5, Place 6. Integer
        // columns first (to-ones with the entity column of their destination), then strings.
        let person = try columns("ZPERSON")
        #expect(person == ["Z_PK", "Z_ENT", "Z_OPT", "ZFAVORITE", "Z3_FAVORITE", "ZSPOUSE", "Z1_SPOUSE", "ZNAME", "ZTITLE"])
        #expect(try columns("Z_1FRIENDS") == ["Z_1FRIENDS", "Z_1FRIENDS1"])
        #expect(try columns("Z_1BOOKMARKS") == ["Z_1PERSON", "Z_6BOOKMARKS"])
        #expect(try columns("Z_1ROUTE") == ["Z_1TRAVELLERS", "Z_6ROUTE", "Z_FOK_6ROUTE"])
    }

    @Test func aRelationshipWithoutInverseWorks() throws {
        // Core Data warns about it when the model loads; it works all the same.
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let ann = context.make("Person", ["name": "Ann"])
        let paris = context.make("Place", ["name": "Paris"])
        ann.mutableSetValue(forKey: "bookmarks").add(paris)
        try context.save()
        ann.mutableSetValue(forKey: "bookmarks").remove(paris)
        try context.save()
        let reopened = try store.container(Self.model()).viewContext
        #expect(try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))[0].set("bookmarks").isEmpty)
    }
}

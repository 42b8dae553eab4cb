import Foundation
@testable import OpenCoreData
import Testing
import OpenCoreDataTesting

/// Fetching across every shape of relationship (RelationshipShapesTests' model): a many-to-many that is
/// its own inverse, a to-many without an inverse, a one-to-one with itself, destinations with
/// subentities, inherited relationships, an ordered many-to-many. SQL and memory give the same answers.
@Suite("Relationships: fetching across every shape")
struct RelationshipShapesFetchTests {
    /// Ann ↔ Bob (Employee) and Ann ↔ Cy are friends; Cy and Bob are spouses; Ann bookmarks Paris and Rome;
    /// Bob has the pets Rex (Dog) and Tom (Cat), Tom his favorite; Bob's route is Rome, Oslo, Paris
    /// (not the order the places were made in), Cy's is Oslo.
    static func people(_ store: TemporaryStore) throws -> NSManagedObjectContext {
        let context = try store.container(RelationshipShapesTests.model()).viewContext
        let ann = context.make("Person", ["name": "Ann"]), bob = context.make("Employee", ["name": "Bob", "title": "CEO"])
        let cy = context.make("Person", ["name": "Cy"])
        cy.setValue(bob, forKey: "spouse")
        ann.mutableSetValue(forKey: "friends").addObjects(from: [bob, cy])
        let paris = context.make("Place", ["name": "Paris"]), rome = context.make("Place", ["name": "Rome"]), oslo = context.make("Place", ["name": "Oslo"])
        ann.mutableSetValue(forKey: "bookmarks").addObjects(from: [paris, rome])
        let rex = context.make("Dog", ["name": "Rex", "breed": "collie"]), tom = context.make("Cat", ["name": "Tom", "color": "grey"])
        bob.mutableSetValue(forKey: "pets").addObjects(from: [rex, tom])
        bob.setValue(tom, forKey: "favorite")
        bob.mutableOrderedSetValue(forKey: "route").addObjects(from: [rome, oslo, paris])
        cy.mutableOrderedSetValue(forKey: "route").add(oslo)
        try context.save()
        return context
    }

    @Test func everyShape() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try Self.people(store)
        let tests = RelationshipFetchTests()
        func check(_ context: NSManagedObjectContext, _ entity: String, _ key: String, _ cases: [(String, [Any], [String])],
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
            try tests.check(context, entity, key, cases, sourceLocation: sourceLocation)
        }
        try check(context, "Person", "name", [
            ("ANY friends.name == 'Bob'", [], ["Ann"]),
            ("ANY friends.name == 'Ann'", [], ["Bob", "Cy"]),
            ("friends.@count == 2", [], ["Ann"]),
            ("ANY bookmarks.name == 'Rome'", [], ["Ann"]),
            ("bookmarks.@count == 0", [], ["Bob", "Cy"]),
            ("spouse.name == 'Cy'", [], ["Bob"]),
            ("spouse.spouse.name == 'Cy'", [], ["Cy"]),
            ("favorite.name == 'Tom'", [], ["Bob"]),
            ("ANY pets.name BEGINSWITH 'R'", [], ["Bob"]),
            ("ALL pets.name == 'Rex'", [], ["Ann", "Cy"]),
            ("ANY route.name == 'Oslo'", [], ["Bob", "Cy"]),
            ("route.@count == 3", [], ["Bob"]),
            ("SUBQUERY(friends, $f, $f.spouse != nil).@count == 2", [], ["Ann"]),
        ])
        try check(context, "Employee", "name", [("ANY pets.name == 'Tom'", [], ["Bob"]), ("spouse.name == 'Ann'", [], [])])
        try check(context, "Pet", "name", [("person.name == 'Bob'", [], ["Rex", "Tom"]), ("person.favorite.name == 'Tom'", [], ["Rex", "Tom"])])
        try check(context, "Dog", "name", [("person.name == 'Bob'", [], ["Rex"])])
        try check(context, "Place", "name", [("ANY travellers.name == 'Bob'", [], ["Paris", "Rome", "Oslo"]), ("travellers.@count == 0", [], [])])
    }

    /// A to-one whose destination has subentities comes back in a dictionary as the ID of the subentity.
    @Test func aToOneOfASubentityInADictionary() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try Self.people(store)
        let request = NSFetchRequest<NSDictionary>(entityName: "Person")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "favorite", "favorite.name"]
        request.predicate = NSPredicate(format: "favorite != nil")
        let rows = try context.fetch(request)
        #expect(rows.count == 1)
        let id = try #require(rows.first?["favorite"] as? NSManagedObjectID)
        #expect(id.entity.name == "Cat")
        #expect(rows.first?["favorite.name"] as? String == "Tom")
        #expect((try context.existingObject(with: id)).value(forKey: "color") as? String == "grey")
    }
}

import Foundation
@testable import OpenCoreData
import Testing

/// Fetches across relationships give the store's answer (SQL) and the same answer from memory: pending
/// changes, `filtered(using:)`, `sorted(using:)`.
@Suite("Relationships: fetching across them")
struct RelationshipFetchTests {
    /// Primates (Capuchin, Gorilla), Carnivora (Lion), an unclassified Dodo; zoos Bronx (Capuchin, Lion)
    /// and Berlin (Gorilla, Lion); an empty classification Rodentia and an empty zoo Empty.
    static func zoo(_ store: TemporaryStore) throws -> NSManagedObjectContext {
        let context = try store.container(RelationshipModel.make()).viewContext
        let primates = context.make("Classification", ["order": "Primates", "family": "Hominidae"])
        let carnivora = context.make("Classification", ["order": "Carnivora", "family": "Felidae"])
        context.make("Classification", ["order": "Rodentia"])
        let bronx = context.make("Zoo", ["name": "Bronx"]), berlin = context.make("Zoo", ["name": "Berlin"])
        context.make("Zoo", ["name": "Empty"])
        for (name, classification, zoos) in [("Capuchin", primates, [bronx]), ("Gorilla", primates, [berlin]),
                                             ("Lion", carnivora, [bronx, berlin]), ("Dodo", nil, [])] as [(String, NSManagedObject?, [NSManagedObject])] {
            let animal = context.make("Animal", ["commonName": name])
            animal.setValue(classification, forKey: "classification")
            animal.mutableSetValue(forKey: "zoos").addObjects(from: zoos)
        }
        try context.save()
        return context
    }

    static func names(_ objects: [NSManagedObject], _ key: String = "commonName") -> [String] {
        objects.map { $0.value(forKey: key) as? String ?? "nil" }
    }

    @Test func sortingByAToOneKeyPathMatchesMemory() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try Self.zoo(store)
        context.reset()
        let sort = [NSSortDescriptor(key: "classification.order", ascending: true), NSSortDescriptor(key: "commonName", ascending: false)]
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.sortDescriptors = sort
        let sql = try context.fetch(request)
        // nil (the unclassified Dodo) first, as SQLite and memory both sort nil.
        #expect(Self.names(sql) == ["Dodo", "Lion", "Gorilla", "Capuchin"])
        #expect(Self.names(sql.sorted(using: sort)) == Self.names(sql))
        // A pending change: the in-memory order follows it.
        let carnivora = try #require(sql[1].value(forKey: "classification") as? NSManagedObject)
        carnivora.setValue("Zalophus", forKey: "order")
        sql[0].setValue(carnivora, forKey: "classification")
        #expect(Self.names(try context.fetch(request)) == ["Gorilla", "Capuchin", "Lion", "Dodo"])
    }
}

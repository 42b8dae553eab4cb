import Foundation
@testable import OpenCoreData
import Testing
import OpenCoreDataTesting

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

    /// Sorting by a to-many's count or aggregate (a scalar subquery in SQL) orders as memory does.
    @Test func sortingByCountsAndAggregates() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try Self.zoo(store)
        context.reset()
        let byZoos = [NSSortDescriptor(key: "zoos.@count", ascending: false), NSSortDescriptor(key: "commonName", ascending: true)]
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.sortDescriptors = byZoos
        let sql = try context.fetch(request)
        #expect(Self.names(sql) == ["Lion", "Capuchin", "Gorilla", "Dodo"])
        #expect(Self.names(sql.sorted(using: byZoos)) == Self.names(sql))
        let zoos = NSFetchRequest<NSManagedObject>(entityName: "Zoo")
        zoos.sortDescriptors = [NSSortDescriptor(key: "animals.@min.commonName", ascending: true)]
        let byFirstAnimal = try context.fetch(zoos)
        #expect(Self.names(byFirstAnimal, "name") == ["Empty", "Bronx", "Berlin"])
        #expect(Self.names(byFirstAnimal.sorted(using: zoos.sortDescriptors!), "name") == Self.names(byFirstAnimal, "name"))
    }

    /// Each predicate's matches, by SQL and in memory, equal the expected names.
    func check(_ context: NSManagedObjectContext, _ entity: String, _ key: String, _ cases: [(String, [Any], [String])],
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        context.reset()
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
        for (format, args, expected) in cases {
            let predicate = try NSPredicate(validatingFormat: format, argumentArray: args)
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = predicate
            let sql = Set(Self.names(try context.fetch(request), key))
            let memory = Set(Self.names(all.filter { predicate.evaluate(with: $0) }, key))
            #expect(sql == Set(expected), "\(format): SQL \(sql.sorted())", sourceLocation: sourceLocation)
            #expect(memory == Set(expected), "\(format): memory \(memory.sorted())", sourceLocation: sourceLocation)
            #expect(try context.count(for: request) == expected.count, "\(format): count", sourceLocation: sourceLocation)
        }
    }

    @Test func toOneKeyPathsAndObjects() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try Self.zoo(store)
        let primates = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Classification")).first { $0.value(forKey: "order") as? String == "Primates" }!
        let lion = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal")).first { $0.value(forKey: "commonName") as? String == "Lion" }!
        let unsaved = NSManagedObject(entity: primates.entity, insertInto: nil)
        try check(context, "Animal", "commonName", [
            ("classification.order == 'Primates'", [], ["Capuchin", "Gorilla"]),
            ("classification.order != 'Primates'", [], ["Lion", "Dodo"]),
            ("classification.order == nil", [], ["Dodo"]),
            ("NOT classification.order BEGINSWITH 'P'", [], ["Lion", "Dodo"]),
            ("classification == %@", [primates], ["Capuchin", "Gorilla"]),
            ("classification == %@", [primates.objectID], ["Capuchin", "Gorilla"]),
            ("classification != %@", [primates], ["Lion", "Dodo"]),
            ("classification == nil", [], ["Dodo"]),
            ("classification != nil", [], ["Capuchin", "Gorilla", "Lion"]),
            ("classification IN %@", [[primates, NSNull()] as [Any]], ["Capuchin", "Gorilla", "Dodo"]),
            ("classification == %@", [unsaved], []),
            ("classification == %@", [lion], []),
            ("self == %@", [lion], ["Lion"]),
            ("self == %@", [lion.objectID], ["Lion"]),
            ("self != %@", [lion], ["Capuchin", "Gorilla", "Dodo"]),
            ("self IN %@", [[lion, primates]], ["Lion"]),
            ("self IN %@", [Set([lion.objectID])], ["Lion"]),
            ("classification < %@", [primates], []),
            ("classification.animals.@count == 2", [], ["Capuchin", "Gorilla"]),
            // A nil to-one on the way gives nil, as a message to nil does on Darwin.
            ("classification.animals.@count == 0", [], []),
            ("classification.animals.@count == nil", [], ["Dodo"]),
        ])
    }

    @Test func toManyKeyPaths() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try Self.zoo(store)
        let bronx = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo")).first { $0.value(forKey: "name") as? String == "Bronx" }!
        let lion = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal")).first { $0.value(forKey: "commonName") as? String == "Lion" }!
        try check(context, "Animal", "commonName", [
            ("ANY zoos.name == 'Bronx'", [], ["Capuchin", "Lion"]),
            ("SOME zoos.name BEGINSWITH[c] 'b'", [], ["Capuchin", "Gorilla", "Lion"]),
            ("ALL zoos.name == 'Bronx'", [], ["Capuchin", "Dodo"]),
            ("NONE zoos.name == 'Bronx'", [], ["Gorilla", "Dodo"]),
            ("ANY zoos == %@", [bronx], ["Capuchin", "Lion"]),
            ("%@ IN zoos", [bronx], ["Capuchin", "Lion"]),
            ("zoos CONTAINS %@", [bronx.objectID], ["Capuchin", "Lion"]),
            ("'Berlin' IN zoos.name", [], ["Gorilla", "Lion"]),
            ("ANY zoos IN %@", [[bronx]], ["Capuchin", "Lion"]),
            ("zoos.@count > 1", [], ["Lion"]),
            ("zoos.@count == 0", [], ["Dodo"]),
            ("SUBQUERY(zoos, $z, $z.name BEGINSWITH 'B').@count > 1", [], ["Lion"]),
            ("SUBQUERY(zoos, $z, $z.name == 'Berlin' AND ANY $z.animals.commonName == 'Gorilla').@count > 0", [], ["Gorilla", "Lion"]),
            ("SUBQUERY(zoos, $z, $z == %@).@count == 1", [bronx], ["Capuchin", "Lion"]),
            ("ANY classification.animals.commonName == 'Gorilla'", [], ["Capuchin", "Gorilla"]),
            ("ALL classification.animals.commonName != 'Gorilla'", [], ["Lion", "Dodo"]),
        ])
        try check(context, "Zoo", "name", [
            ("ANY animals.classification.order == 'Primates'", [], ["Bronx", "Berlin"]),
            ("ANY animals.classification.order == nil", [], []),
            ("ALL animals.classification.order == 'Carnivora'", [], ["Empty"]),
            ("animals.@count == 0", [], ["Empty"]),
            ("%@ IN animals", [lion], ["Bronx", "Berlin"]),
            ("animals.@max.commonName == 'Lion'", [], ["Bronx", "Berlin"]),
            ("animals.@min.commonName == 'Capuchin'", [], ["Bronx"]),
        ])
        try check(context, "Classification", "order", [
            ("animals.@count == 0", [], ["Rodentia"]),
            ("animals.@count >= 1 AND ALL animals.commonName BEGINSWITH 'L'", [], ["Carnivora"]),
            ("ALL animals.commonName BEGINSWITH 'L'", [], ["Carnivora", "Rodentia"]),
            ("animals.@max.commonName == nil", [], ["Rodentia"]),
            ("ANY animals.zoos.@count == 2", [], ["Carnivora"]),
        ])
    }

    /// Beyond Core Data: unsaved changes to related objects count too (a renamed zoo, a reclassified
    /// animal, a renamed order), for objects, IDs, counts and the sort order.
    @Test func pendingChangesOfRelatedObjectsCount() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try Self.zoo(store)
        context.reset()
        let zoos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo"))
        zoos.first { $0.value(forKey: "name") as? String == "Bronx" }!.setValue("Bronxville", forKey: "name")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.predicate = NSPredicate(format: "ANY zoos.name == 'Bronxville'")
        #expect(Set(Self.names(try context.fetch(request))) == ["Capuchin", "Lion"])
        #expect(try context.count(for: request) == 2)
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Animal")
        ids.resultType = .managedObjectIDResultType
        ids.predicate = request.predicate
        #expect(try context.fetch(ids).count == 2)
        request.includesPendingChanges = false
        #expect(try context.fetch(request).isEmpty)

        let classifications = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Classification"))
        classifications.first { $0.value(forKey: "order") as? String == "Carnivora" }!.setValue("Zalophus", forKey: "order")
        let sorted = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        sorted.sortDescriptors = [NSSortDescriptor(key: "classification.order", ascending: true), NSSortDescriptor(key: "commonName", ascending: true)]
        #expect(Self.names(try context.fetch(sorted)) == ["Dodo", "Capuchin", "Gorilla", "Lion"])
        sorted.predicate = NSPredicate(format: "classification.order BEGINSWITH 'Z'")
        #expect(Self.names(try context.fetch(sorted)) == ["Lion"])
    }
}

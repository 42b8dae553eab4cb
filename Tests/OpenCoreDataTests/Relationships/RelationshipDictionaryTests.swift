import Foundation
@testable import OpenCoreData
import Testing
import OpenCoreDataTesting

/// Dictionary results across to-one relationships: `"classification.family"` is a key of each dictionary,
/// a to-one relationship's value is its destination's object ID; grouping by either.
@Suite("Relationships: dictionary results")
struct RelationshipDictionaryTests {
    func request(_ properties: [Any], groupBy: [Any]? = nil, sort: String? = nil) -> NSFetchRequest<NSDictionary> {
        let request = NSFetchRequest<NSDictionary>(entityName: "Animal")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy
        request.sortDescriptors = sort.map { [NSSortDescriptor(key: $0, ascending: true)] }
        return request
    }

    func count(_ name: String, of key: String) -> NSExpressionDescription {
        let d = NSExpressionDescription()
        d.name = name
        d.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: key)])
        d.expressionResultType = .integer64AttributeType
        return d
    }

    @Test func keyPathsAcrossToOnesAndToOnesThemselves() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try RelationshipFetchTests.zoo(store)
        let animals = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
        let byName = Dictionary(uniqueKeysWithValues: animals.map { ($0.value(forKey: "commonName") as! String, $0) })
        let classification = context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Animal"]!.relationshipsByName["classification"]!
        let rows = try context.fetch(request(["commonName", "classification.family", classification], sort: "commonName"))
        #expect(rows.map { $0["commonName"] as? String } == ["Capuchin", "Dodo", "Gorilla", "Lion"])
        #expect(rows.map { $0["classification.family"] as? String } == ["Hominidae", nil, "Hominidae", "Felidae"])
        for row in rows {
            let animal = byName[row["commonName"] as! String]!
            let expected = (animal.value(forKey: "classification") as? NSManagedObject)?.objectID
            #expect(row["classification"] as? NSManagedObjectID == expected)
        }
        // The unclassified Dodo's dictionary leaves both keys out, as Core Data leaves out nil values.
        #expect(rows[1].count == 1)
    }

    @Test func groupingByAKeyPathAcrossAToOneOrByTheToOne() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try RelationshipFetchTests.zoo(store)
        let byOrder = try context.fetch(request(["classification.order", count("animals", of: "commonName")],
                                                groupBy: ["classification.order"], sort: "classification.order"))
        #expect(byOrder.map { "\($0["classification.order"] ?? "nil"):\($0["animals"]!)" } == ["nil:1", "Carnivora:1", "Primates:2"])
        let byClassification = try context.fetch(request(["classification", count("animals", of: "commonName")], groupBy: ["classification"]))
        let counts = Dictionary(uniqueKeysWithValues: byClassification.map { (($0["classification"] as? NSManagedObjectID)?.uriRepresentation().absoluteString ?? "nil", $0["animals"] as! Int) })
        #expect(counts.values.sorted() == [1, 1, 2])
        #expect(counts["nil"] == 1)
        let distinct = request(["classification.order"])
        distinct.returnsDistinctResults = true
        #expect(Set(try context.fetch(distinct).map { $0["classification.order"] as? String }) == [nil, "Carnivora", "Primates"])
    }

    @Test func theSQL() throws {
        let coordinator = RelationshipSQLTests.coordinator
        let classification = coordinator.managedObjectModel.entitiesByName["Animal"]!.relationshipsByName["classification"]!
        let fetch = request(["commonName", "classification.family", classification, count("n", of: "classification.order")],
                            groupBy: ["classification.family", "classification"])
        let plan = try FetchPlan(fetch, model: coordinator.managedObjectModel)
        let (keys, columns) = try DictionaryFetch(plan: plan, request: fetch).resolve()
        #expect(keys == ["commonName", "classification.family", "classification", "n"])
        #expect(try coordinator.sqlite.columnsSQL(plan, columns).0
                == "SELECT t0.ZCOMMONNAME, t1.ZFAMILY, t0.ZCLASSIFICATION, COUNT(t1.ZORDER) FROM ZANIMAL t0"
                + " LEFT OUTER JOIN ZCLASSIFICATION t1 ON t0.ZCLASSIFICATION = t1.Z_PK GROUP BY t1.ZFAMILY, t0.ZCLASSIFICATION")
    }

    @Test func badProperties() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try RelationshipFetchTests.zoo(store)
        #expect { try context.fetch(self.request(["zoos.name"])) } throws: {
            ($0 as? CoreDataError)?.message == "to-many key not allowed here: keypath zoos.name in entity Animal (propertiesToFetch) (a to-many relationship gives many values)"
        }
        #expect { try context.fetch(self.request(["zoos"])) } throws: { ($0 as? CoreDataError)?.message.hasPrefix("to-many key not allowed here") == true }
        #expect { try context.fetch(self.request(["classification.nope"])) } throws: {
            ($0 as? CoreDataError)?.message == "keypath classification.nope not found in entity Animal (propertiesToFetch): entity Classification has no property nope"
        }
        #expect { try context.fetch(self.request(["commonName"], groupBy: ["classification.nope"])) } throws: {
            ($0 as? CoreDataError)?.message.hasPrefix("keypath classification.nope not found in entity Animal (propertiesToGroupBy)") == true
        }
    }
}

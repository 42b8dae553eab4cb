import Foundation
@testable import OpenCoreData
import Testing

/// The exact SQL of fetches across relationships (RelationshipModel: entity numbers by name — Animal 1,
/// Classification 2, Owner 5, Pet 6, Toy 10, Zoo 12; Animal.zoos ↔ Zoo.animals is the join table
/// `Z_1ZOOS (Z_1ANIMALS, Z_12ZOOS)`). Values are bound, never in the text.
@Suite("Relationships: generated SQL")
struct RelationshipSQLTests {
    static let coordinator: NSPersistentStoreCoordinator = {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: RelationshipModel.make())
        try! coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        return coordinator
    }()

    /// The SQL and arguments of a fetch of `entity` (keys only, so the select list stays short).
    func sql(_ entity: String, _ format: String? = nil, _ args: [Any] = [], sort: [NSSortDescriptor] = []) throws -> (String, [Value]) {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = try format.map { try NSPredicate(validatingFormat: $0, argumentArray: args) }
        request.sortDescriptors = sort
        let plan = try FetchPlan(request, model: Self.coordinator.managedObjectModel)
        return try Self.coordinator.sqlite.selectSQL(plan, columns: "t0.Z_PK", limited: true)
    }

    func condition(_ entity: String, _ format: String, _ args: [Any] = []) throws -> String {
        let (text, _) = try sql(entity, format, args)
        let prefix = "SELECT t0.Z_PK FROM Z\(entity.uppercased()) t0"
        #expect(text.hasPrefix(prefix) && text.hasSuffix(" ORDER BY t0.Z_PK"), "\(text)")
        return String(text.dropFirst(prefix.count).dropLast(" ORDER BY t0.Z_PK".count))
    }

    @Test func aToOneKeyPathJoinsOuterOncePerPath() throws {
        let (text, args) = try sql("Animal", "classification.order == %@ OR classification.family BEGINSWITH[c] %@", ["Primates", "hom"])
        #expect(text == "SELECT t0.Z_PK FROM ZANIMAL t0 LEFT OUTER JOIN ZCLASSIFICATION t1 ON t0.ZCLASSIFICATION = t1.Z_PK"
                + " WHERE (t1.ZORDER = ? OR ocd_beginswith(t1.ZFAMILY, ?, 1)) ORDER BY t0.Z_PK")
        #expect(args == [.string("Primates"), .string("hom")])
    }

    @Test func twoToOnesDeepJoinTwice() throws {
        #expect(try condition("Toy", "pet.owner.name == 'Ann' AND pet.name != nil")
                == " LEFT OUTER JOIN ZPET t1 ON t0.ZPET = t1.Z_PK LEFT OUTER JOIN ZOWNER t2 ON t1.ZOWNER = t2.Z_PK"
                + " WHERE (t2.ZNAME = ? AND t1.ZNAME IS NOT NULL)")
    }

    @Test func sortingByAToOneKeyPathJoinsAndCollates() throws {
        let sort = [NSSortDescriptor(key: "classification.order", ascending: true, selector: "localizedStandardCompare:"),
                    NSSortDescriptor(key: "commonName", ascending: false)]
        #expect(try sql("Animal", sort: sort).0
                == "SELECT t0.Z_PK FROM ZANIMAL t0 LEFT OUTER JOIN ZCLASSIFICATION t1 ON t0.ZCLASSIFICATION = t1.Z_PK"
                + " ORDER BY t1.ZORDER COLLATE ocd_localized_standard, t0.ZCOMMONNAME DESC, t0.Z_PK")
        // The predicate's join serves the sort too.
        #expect(try sql("Animal", "classification.order != nil", sort: [NSSortDescriptor(key: "classification.order", ascending: true)]).0
                == "SELECT t0.Z_PK FROM ZANIMAL t0 LEFT OUTER JOIN ZCLASSIFICATION t1 ON t0.ZCLASSIFICATION = t1.Z_PK"
                + " WHERE t1.ZORDER IS NOT NULL ORDER BY t1.ZORDER, t0.Z_PK")
        #expect(try sql("Toy", sort: [NSSortDescriptor(key: "pet.owner.name", ascending: true)]).0
                == "SELECT t0.Z_PK FROM ZTOY t0 LEFT OUTER JOIN ZPET t1 ON t0.ZPET = t1.Z_PK LEFT OUTER JOIN ZOWNER t2 ON t1.ZOWNER = t2.Z_PK"
                + " ORDER BY t2.ZNAME, t0.Z_PK")
    }

    @Test func aCountJoinsOnlyWhatItsPredicateReads() throws {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.predicate = NSPredicate(format: "classification.order == %@", "Primates")
        request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
        let plan = try FetchPlan(request, model: Self.coordinator.managedObjectModel)
        #expect(try Self.coordinator.sqlite.countSQL(plan).0
                == "SELECT COUNT(*) FROM ZANIMAL t0 LEFT OUTER JOIN ZCLASSIFICATION t1 ON t0.ZCLASSIFICATION = t1.Z_PK WHERE t1.ZORDER = ?")
        request.predicate = nil
        request.sortDescriptors = [NSSortDescriptor(key: "classification.order", ascending: true)]
        #expect(try Self.coordinator.sqlite.countSQL(try FetchPlan(request, model: Self.coordinator.managedObjectModel)).0
                == "SELECT COUNT(*) FROM ZANIMAL t0")
    }

    static let zoos = "FROM Z_1ZOOS t1 JOIN ZZOO t2 ON t1.Z_12ZOOS = t2.Z_PK WHERE t1.Z_1ANIMALS = t0.Z_PK"

    @Test func anyAllNoneOverAManyToMany() throws {
        #expect(try condition("Animal", "ANY zoos.name == 'Bronx'") == " WHERE EXISTS (SELECT 1 \(Self.zoos) AND t2.ZNAME = ?)")
        #expect(try condition("Animal", "SOME zoos.name ==[c] 'Bronx'") == " WHERE EXISTS (SELECT 1 \(Self.zoos) AND ocd_fold(t2.ZNAME, 1) = ?)")
        #expect(try sql("Animal", "SOME zoos.name ==[c] 'Bronx'").1 == [.string("bronx")])
        #expect(try condition("Animal", "NONE zoos.name == 'Bronx'") == " WHERE NOT EXISTS (SELECT 1 \(Self.zoos) AND t2.ZNAME = ?)")
        // ALL: no zoo fails the test (true for an animal in no zoo).
        #expect(try condition("Animal", "ALL zoos.name BEGINSWITH 'B'")
                == " WHERE NOT EXISTS (SELECT 1 \(Self.zoos) AND NOT COALESCE(ocd_beginswith(t2.ZNAME, ?, 0), 0))")
        #expect(try condition("Animal", "ALL zoos.name != nil") == " WHERE NOT EXISTS (SELECT 1 \(Self.zoos) AND NOT COALESCE(t2.ZNAME IS NOT NULL, 0))")
        // Comparing the zoos themselves needs no join to ZZOO.
        #expect(try condition("Animal", "ANY zoos IN %@", [[NSManagedObjectID]()]) == " WHERE 0")
    }

    @Test func anyOverAToManyWhoseInverseIsAToOne() throws {
        #expect(try condition("Classification", "ANY animals.commonName BEGINSWITH 'C'")
                == " WHERE EXISTS (SELECT 1 FROM ZANIMAL t1 WHERE t1.ZCLASSIFICATION = t0.Z_PK AND ocd_beginswith(t1.ZCOMMONNAME, ?, 0))")
        // To-ones after the to-many join inside the subquery, outer.
        #expect(try condition("Zoo", "ANY animals.classification.order == 'Primates'")
                == " WHERE EXISTS (SELECT 1 FROM Z_1ZOOS t1 JOIN ZANIMAL t2 ON t1.Z_1ANIMALS = t2.Z_PK"
                + " LEFT OUTER JOIN ZCLASSIFICATION t3 ON t2.ZCLASSIFICATION = t3.Z_PK WHERE t1.Z_12ZOOS = t0.Z_PK AND t3.ZORDER = ?)")
        // A to-one before the to-many: correlated on the foreign key, no join.
        #expect(try condition("Animal", "ANY classification.animals.commonName == 'Gorilla'")
                == " WHERE EXISTS (SELECT 1 FROM ZANIMAL t1 WHERE t1.ZCLASSIFICATION = t0.ZCLASSIFICATION AND t1.ZCOMMONNAME = ?)")
    }

    @Test func countsOfToManys() throws {
        #expect(try condition("Animal", "zoos.@count > 1") == " WHERE (SELECT COUNT(*) FROM Z_1ZOOS t1 WHERE t1.Z_1ANIMALS = t0.Z_PK) > ?")
        #expect(try condition("Classification", "animals.@count == 0")
                == " WHERE (SELECT COUNT(*) FROM ZANIMAL t1 WHERE t1.ZCLASSIFICATION = t0.Z_PK) = ?")
        // A nil classification's animals.@count is nil (as in memory), not 0.
        #expect(try condition("Animal", "classification.animals.@count >= 2")
                == " WHERE CASE WHEN t0.ZCLASSIFICATION IS NULL THEN NULL ELSE (SELECT COUNT(*) FROM ZANIMAL t1 WHERE t1.ZCLASSIFICATION = t0.ZCLASSIFICATION) END >= ?")
    }

    @Test func subqueries() throws {
        #expect(try condition("Animal", "SUBQUERY(zoos, $z, $z.name BEGINSWITH 'B').@count > 0")
                == " WHERE (SELECT COUNT(*) \(Self.zoos) AND ocd_beginswith(t2.ZNAME, ?, 0)) > ?")
        // The variable alone is the zoo's key; a plain key path inside is the animal's.
        #expect(try condition("Animal", "SUBQUERY(zoos, $z, $z == %@ OR commonName == 'x').@count == 1", [NSManagedObjectID.placeholder(RelationshipSQLTests.coordinator, "Zoo", 7)])
                == " WHERE (SELECT COUNT(*) FROM Z_1ZOOS t1 WHERE t1.Z_1ANIMALS = t0.Z_PK AND (t1.Z_12ZOOS = ? OR t0.ZCOMMONNAME = ?)) = ?")
        // Nested: the inner subquery is correlated with the outer one's zoo.
        #expect(try condition("Animal", "SUBQUERY(zoos, $z, ANY $z.animals.commonName == 'Lion').@count > 0")
                == " WHERE (SELECT COUNT(*) FROM Z_1ZOOS t1 WHERE t1.Z_1ANIMALS = t0.Z_PK AND EXISTS (SELECT 1 FROM Z_1ZOOS t2"
                + " JOIN ZANIMAL t3 ON t2.Z_1ANIMALS = t3.Z_PK WHERE t2.Z_12ZOOS = t1.Z_12ZOOS AND t3.ZCOMMONNAME = ?)) > ?")
    }

    @Test func membershipInAToMany() throws {
        let zoo = NSManagedObjectID.placeholder(Self.coordinator, "Zoo", 3)
        let (text, args) = try sql("Animal", "%@ IN zoos", [zoo])
        #expect(text == "SELECT t0.Z_PK FROM ZANIMAL t0 WHERE EXISTS (SELECT 1 FROM Z_1ZOOS t1 WHERE t1.Z_1ANIMALS = t0.Z_PK AND t1.Z_12ZOOS = ?) ORDER BY t0.Z_PK")
        #expect(args == [.int(3)])
        #expect(try condition("Animal", "zoos CONTAINS %@", [zoo]) == " WHERE EXISTS (SELECT 1 FROM Z_1ZOOS t1 WHERE t1.Z_1ANIMALS = t0.Z_PK AND t1.Z_12ZOOS = ?)")
        #expect(try condition("Animal", "'Bronx' IN[c] zoos.name") == " WHERE EXISTS (SELECT 1 \(Self.zoos) AND ocd_fold(t2.ZNAME, 1) = ?)")
    }

    @Test func objectsAndIDsCompareAsKeys() throws {
        let primates = NSManagedObjectID.placeholder(Self.coordinator, "Classification", 4)
        let lion = NSManagedObjectID.placeholder(Self.coordinator, "Animal", 9)
        #expect(try sql("Animal", "classification == %@", [primates]) == ("SELECT t0.Z_PK FROM ZANIMAL t0 WHERE t0.ZCLASSIFICATION = ? ORDER BY t0.Z_PK", [.int(4)]))
        #expect(try condition("Animal", "classification != %@", [primates]) == " WHERE t0.ZCLASSIFICATION IS NOT ?")
        #expect(try condition("Animal", "classification == nil") == " WHERE t0.ZCLASSIFICATION IS NULL")
        #expect(try condition("Animal", "classification IN %@", [[primates, NSNull()] as [Any]]) == " WHERE (t0.ZCLASSIFICATION IN (?) OR t0.ZCLASSIFICATION IS NULL)")
        #expect(try sql("Animal", "self == %@", [lion]) == ("SELECT t0.Z_PK FROM ZANIMAL t0 WHERE t0.Z_PK = ? ORDER BY t0.Z_PK", [.int(9)]))
        #expect(try condition("Animal", "self IN %@", [[lion, primates]]) == " WHERE t0.Z_PK IN (?)")
        #expect(try condition("Animal", "self != %@", [lion]) == " WHERE t0.Z_PK IS NOT ?")
        // Keys of another table, an unsaved object (temporary ID), an ordering: nothing matches.
        #expect(try condition("Animal", "classification == %@", [lion]) == " WHERE 0")
        #expect(try condition("Animal", "classification == %@", [NSManagedObjectID.temporary(for: primates.entity)]) == " WHERE 0")
        #expect(try condition("Animal", "classification < %@", [primates]) == " WHERE 0")
        #expect(try condition("Animal", "self == nil") == " WHERE 0")
        // Through a to-one: the classification's own to-one would join; its key is its foreign key column.
        #expect(try condition("Toy", "pet.owner == %@", [NSManagedObjectID.placeholder(Self.coordinator, "Owner", 2)])
                == " LEFT OUTER JOIN ZPET t1 ON t0.ZPET = t1.Z_PK WHERE t1.ZOWNER = ?")
    }

    static let graph: NSPersistentStoreCoordinator = {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: GraphModel.make())
        try! coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        return coordinator
    }()

    @Test func aggregatesOfToManys() throws {
        func where_(_ entity: String, _ format: String) throws -> String {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = NSPredicate(format: format)
            let text = try Self.graph.sqlite.selectSQL(try FetchPlan(request, model: Self.graph.managedObjectModel), columns: "t0.Z_PK", limited: true).0
            return String(text.dropFirst("SELECT t0.Z_PK FROM Z\(entity.uppercased()) t0".count).dropLast(" ORDER BY t0.Z_PK".count))
        }
        #expect(try where_("Classification", "animals.@sum.weight > 10")
                == " WHERE (SELECT COALESCE(SUM(t1.ZWEIGHT), 0) FROM ZANIMAL t1 WHERE t1.ZCLASSIFICATION = t0.Z_PK) > ?")
        #expect(try where_("Classification", "animals.@avg.legs == 4")
                == " WHERE (SELECT AVG(t1.ZLEGS) FROM ZANIMAL t1 WHERE t1.ZCLASSIFICATION = t0.Z_PK) = ?")
        #expect(try where_("Zoo", "animals.@max.born < CAST(1000, 'NSDate')")
                == " WHERE (SELECT MAX(t2.ZBORN) FROM Z_1ZOOS t1 JOIN ZANIMAL t2 ON t1.Z_1ANIMALS = t2.Z_PK WHERE t1.Z_4ZOOS = t0.Z_PK) < ?")
        #expect(try where_("Zoo", "animals.@min.classification.rank == 1")
                == " WHERE (SELECT MIN(t3.ZRANK) FROM Z_1ZOOS t1 JOIN ZANIMAL t2 ON t1.Z_1ANIMALS = t2.Z_PK"
                + " LEFT OUTER JOIN ZCLASSIFICATION t3 ON t2.ZCLASSIFICATION = t3.Z_PK WHERE t1.Z_4ZOOS = t0.Z_PK) = ?")
        #expect(try where_("Kingdom", "classifications.@sum.animals.@count > 3")
                == " WHERE (SELECT COALESCE(SUM((SELECT COUNT(*) FROM ZANIMAL t2 WHERE t2.ZCLASSIFICATION = t1.Z_PK)), 0)"
                + " FROM ZCLASSIFICATION t1 WHERE t1.ZKINGDOM = t0.Z_PK) > ?")
    }
}

extension NSManagedObjectID {
    /// The ID of row `pk` of `entity` in the coordinator's store (the row need not exist).
    static func placeholder(_ coordinator: NSPersistentStoreCoordinator, _ entity: String, _ pk: Int64) -> NSManagedObjectID {
        let e = coordinator.managedObjectModel.entitiesByName[entity]!
        return NSManagedObjectID(entity: e, key: .permanent(root: e.layout.root.layout.entityID, pk: pk),
                                 storeIdentifier: try! coordinator.firstStoreBackend().identifier)
    }
}

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
}

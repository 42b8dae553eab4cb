import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The exact SQL of each seed-000 step (values are bound, never in the text).
@Suite("Generated SQL text")
struct SQLTextTests {
    private func sql(_ configure: (NSFetchRequest<Products>) -> Void, limited: Bool = true) throws -> (String, [Value]) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let request = NSFetchRequest<Products>(entityName: "Products")
        configure(request)
        let plan = try FetchPlan(request, model: coordinator.managedObjectModel)
        return try coordinator.sqlite.selectSQL(plan, limited: limited)
    }

    @Test func seed000Steps() throws {
        let columns = "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0"
        #expect(try sql { _ in }.0 == "\(columns) ORDER BY t0.Z_PK")
        #expect(try sql { $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)] }.0
                == "\(columns) ORDER BY t0.ZNAME, t0.ZPRICE, t0.Z_PK")
        let milk = try sql { $0.predicate = NSPredicate(format: "name == %@", "Колбаса «Молочная»") }
        #expect(milk.0 == "\(columns) WHERE t0.ZNAME = ? ORDER BY t0.Z_PK")
        #expect(milk.1 == [.string("Колбаса «Молочная»")])
        let sausages = try sql { $0.predicate = NSPredicate(format: "name CONTAINS[cd] %@ AND price < %d", "колбаса", 500) }
        #expect(sausages.0 == "\(columns) WHERE (ocd_contains(t0.ZNAME, ?, 3) AND t0.ZPRICE < ?) ORDER BY t0.Z_PK")
        #expect(sausages.1 == [.string("колбаса"), .int(500)])
        #expect(try sql { $0.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]; $0.fetchLimit = 12 }.0
                == "\(columns) ORDER BY t0.ZPRICE, t0.Z_PK LIMIT 12")
        #expect(try sql { $0.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]; $0.fetchLimit = 12; $0.fetchOffset = 2 }.0
                == "\(columns) ORDER BY t0.ZPRICE, t0.Z_PK LIMIT 12 OFFSET 2")
        #expect(try sql { $0.predicate = NSPredicate(format: "price == 999"); $0.includesSubentities = false }.0
                == "\(columns) WHERE t0.Z_ENT = 1 AND t0.ZPRICE = ? ORDER BY t0.Z_PK")
    }

    /// A collection or an arbitrary object equals no attribute value (was `IS NULL`, matching nil names).
    @Test func collectionsAndObjectsNeverEqualAnAttribute() throws {
        let columns = "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0"
        for argument in [["a", "b"] as Any, Set(["a"]) as Any, OpaqueArgument(tag: 1) as Any] {
            #expect(try sql { $0.predicate = NSPredicate(format: "name == %@", argument) } == ("\(columns) WHERE 0 ORDER BY t0.Z_PK", []))
            #expect(try sql { $0.predicate = NSPredicate(format: "name != %@", argument) } == ("\(columns) ORDER BY t0.Z_PK", []))
            #expect(try sql { $0.predicate = NSPredicate(format: "price < %@", argument) } == ("\(columns) WHERE 0 ORDER BY t0.Z_PK", []))
        }
    }

    @Test func countRequests() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        func countSQL(_ configure: (NSFetchRequest<Products>) -> Void) throws -> (String, [Value]) {
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
            configure(request)
            let plan = try FetchPlan(request, model: coordinator.managedObjectModel)
            return try coordinator.sqlite.countSQL(plan)
        }
        let cheap = try countSQL { $0.predicate = NSPredicate(format: "price < %d", 500) }
        #expect(cheap.0 == "SELECT COUNT(*) FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ?")
        #expect(cheap.1 == [.int(500)])
        #expect(try countSQL { $0.fetchLimit = 12; $0.fetchOffset = 2 }.0
                == "SELECT COUNT(*) FROM (SELECT t0.Z_PK FROM ZPRODUCTS t0 ORDER BY t0.ZPRICE, t0.Z_PK LIMIT 12 OFFSET 2)")
    }

    @Test func idOnlyFetchesBreakTiesLikeFullFetches() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
        let plan = try FetchPlan(request, model: coordinator.managedObjectModel)
        let sql = try coordinator.sqlite.selectSQL(plan, columns: "t0.Z_PK, t0.Z_ENT, t0.Z_OPT", limited: true).0
        #expect(sql == "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT FROM ZPRODUCTS t0 ORDER BY t0.ZPRICE, t0.Z_PK")
        // A batched fetch's first query: keys, and Z_ENT because Products has a subentity
        // (FavoriteProducts); no Z_OPT.
        request.fetchBatchSize = 20
        let batched = try FetchPlan(request, model: coordinator.managedObjectModel)
        let keys = try coordinator.sqlite.keysSQL(batched).sql
        #expect(keys == "SELECT t0.Z_PK, t0.Z_ENT FROM ZPRODUCTS t0 ORDER BY t0.ZPRICE, t0.Z_PK")
    }

    @Test func semanticsShowInTheSQL() throws {
        let columns = "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0"
        #expect(try sql { $0.predicate = NSPredicate(format: "NOT price < 5") }.0
                == "\(columns) WHERE NOT COALESCE(t0.ZPRICE < ?, 0) ORDER BY t0.Z_PK")
        #expect(try sql { $0.predicate = NSPredicate(format: "name != %@", "x") }.0 == "\(columns) WHERE t0.ZNAME IS NOT ? ORDER BY t0.Z_PK")
        #expect(try sql { $0.predicate = NSPredicate(format: "name == nil") }.0 == "\(columns) WHERE t0.ZNAME IS NULL ORDER BY t0.Z_PK")
        #expect(try sql { $0.predicate = NSPredicate(format: "name ==[c] %@", "ABC") }.1 == [.string("abc")])
        #expect(try sql { $0.predicate = NSPredicate(format: "name IN %@", ["a", NSNull(), 5] as [Any]) }.0
                == "\(columns) WHERE (t0.ZNAME IN (?) OR t0.ZNAME IS NULL) ORDER BY t0.Z_PK")
        #expect(try sql { $0.predicate = NSPredicate(format: "price == %@", "five") }.0 == "\(columns) WHERE 0 ORDER BY t0.Z_PK")
        #expect(try sql { $0.predicate = NSPredicate(format: "name LIKE[c] 'a*'") }.0 == "\(columns) WHERE ocd_like(t0.ZNAME, ?, 1) ORDER BY t0.Z_PK")
        #expect(try sql { $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false, selector: "localizedStandardCompare:")] }.0
                == "\(columns) ORDER BY t0.ZNAME COLLATE ocd_localized_standard DESC, t0.Z_PK")
        #expect(try sql { $0.predicate = NSPredicate(format: "price BETWEEN {1, 10}") }.0
                == "\(columns) WHERE (t0.ZPRICE >= ? AND t0.ZPRICE <= ?) ORDER BY t0.Z_PK")
    }

    /// Foundation's keys of a string attribute in a predicate (issue 17): `name.length` counts UTF-16
    /// units, as `NSString`'s `length` and the in-memory evaluator do (SQLite's `length()` counts
    /// characters); `uppercaseString`/`lowercaseString` are the same functions as `uppercase:`.
    @Test func foundationKeysOfStringAttributes() throws {
        let columns = "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0"
        let length = try sql { $0.predicate = NSPredicate(format: "name.length > %d", 3) }
        #expect(length.0 == "\(columns) WHERE ocd_utf16_length(t0.ZNAME) > ? ORDER BY t0.Z_PK")
        #expect(length.1 == [.int(3)])
        #expect(try sql { $0.predicate = NSPredicate(format: "name.uppercaseString == 'МАСЛО'") }.0
                == "\(columns) WHERE ocd_upper(t0.ZNAME) = ? ORDER BY t0.Z_PK")
        #expect(try sql { $0.predicate = NSPredicate(format: "name.lowercaseString BEGINSWITH 'к'") }.0
                == "\(columns) WHERE ocd_beginswith(ocd_lower(t0.ZNAME), ?, 0) ORDER BY t0.Z_PK")
        // Other keys of a value, and these keys on a number or in a sort descriptor, stay errors naming the key.
        for (format, message) in [("name.nope == 1", "keypath name.nope not found in entity Products: name is an attribute of entity Products, not a relationship"),
                                  ("price.length == 1", "keypath price.length not found in entity Products: price is an attribute of entity Products, not a relationship"),
                                  ("name.length.length == 1", "keypath name.length.length not found in entity Products: name is an attribute of entity Products, not a relationship")] {
            #expect(throws: (any Error).self) { try sql { $0.predicate = NSPredicate(format: format) } }
            do { _ = try sql { $0.predicate = NSPredicate(format: format) } } catch { #expect("\(error)".contains(message), "\(error)") }
        }
        #expect(throws: (any Error).self) { try sql { $0.sortDescriptors = [NSSortDescriptor(key: "name.length", ascending: true)] } }
    }

    /// The store answers `name.length`, `length:(name)` and `FUNCTION(name, 'length')` as memory does on
    /// the same values: UTF-16 units, as `NSString`'s `length` (a non-BMP character is two). Strings are
    /// stored in NFC, so "Cafe\u{301}" (five units) comes back as "Café" (four).
    @Test(arguments: ["name.length == 2", "length:(name) == 2", "FUNCTION(name, 'length') == 2", "length:(name) == 4"])
    func lengthKeyFetchesWhatMemoryEvaluates(_ format: String) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for name in ["😀", "ab", "Cafe\u{301}", "Сыр"] {
                let p = Products(context: context)
                p.name = name
            }
            try context.save()
            let predicate = NSPredicate(format: format)
            context.reset()
            let inMemory = try context.fetch(NSFetchRequest<Products>(entityName: "Products")).filter { predicate.evaluate(with: $0) }.compactMap(\.name)
            context.reset()
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.predicate = predicate
            let fetched = try context.fetch(request).compactMap(\.name)
            #expect(Set(fetched) == (format.hasSuffix("4") ? ["Café"] : ["😀", "ab"]))
            #expect(Set(inMemory) == Set(fetched))
        }
    }
}

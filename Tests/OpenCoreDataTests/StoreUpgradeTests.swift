import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A store written by an earlier OpenCoreData (JSON metadata with our own model hash, the table
/// `Z_OCDGENERATION`, entities numbered in name order) is upgraded to Core Data's format once, in one
/// transaction, when it is first opened writable (issue #33).
@Suite struct StoreUpgradeTests {
    /// The relationship-shapes model as the earlier version laid it out: Cat 1, Dog 2, Employee 3,
    /// Person 4, Pet 5, Place 6; entity columns named after the source entity; join tables owned by the
    /// side whose entity name sorts first. Made with plain SQL, as that version wrote it.
    static func makeLegacyStore(_ url: URL, model: NSManagedObjectModel) throws {
        let db = try SQLiteConnection(path: url.path)
        let json = try JSONSerialization.data(withJSONObject: ["storeUUID": "0C1D2E3F-0000-4000-8000-000000000001",
                                                               "storeType": "SQLite", "versionHash": model.versionHash])
        for statement in [
            "PRAGMA journal_mode = WAL",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_OCDGENERATION (Z_VALUE INTEGER NOT NULL)",
            "INSERT INTO Z_OCDGENERATION VALUES (7)",
            "CREATE TABLE ZPERSON (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZSPOUSE INTEGER, Z4_SPOUSE INTEGER, ZFAVORITE INTEGER, Z4_FAVORITE INTEGER, ZTITLE VARCHAR)",
            "CREATE INDEX IF NOT EXISTS ZPERSON_Z_ENT_INDEX ON ZPERSON (Z_ENT)",
            "CREATE TABLE ZPET (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZPERSON INTEGER, Z5_PERSON INTEGER, ZCOLOR VARCHAR, ZBREED VARCHAR)",
            "CREATE TABLE ZPLACE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)",
            "CREATE TABLE Z_4FRIENDS (Z_4FRIENDS INTEGER, Z_4FRIENDS1 INTEGER, PRIMARY KEY (Z_4FRIENDS, Z_4FRIENDS1))",
            "CREATE TABLE Z_4BOOKMARKS (Z_4PERSON INTEGER, Z_6BOOKMARKS INTEGER, PRIMARY KEY (Z_4PERSON, Z_6BOOKMARKS))",
            "CREATE INDEX IF NOT EXISTS Z_4BOOKMARKS_Z_6BOOKMARKS_INDEX ON Z_4BOOKMARKS (Z_6BOOKMARKS, Z_4PERSON)",
            "CREATE TABLE Z_4ROUTE (Z_4TRAVELLERS INTEGER, Z_6ROUTE INTEGER, Z_FOK_6ROUTE INTEGER, PRIMARY KEY (Z_4TRAVELLERS, Z_6ROUTE))",
            "CREATE INDEX IF NOT EXISTS Z_4ROUTE_Z_6ROUTE_INDEX ON Z_4ROUTE (Z_6ROUTE, Z_4TRAVELLERS)",
            "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Cat', 5, 0), (2, 'Dog', 5, 0), (3, 'Employee', 4, 0), (4, 'Person', 0, 3), (5, 'Pet', 0, 2), (6, 'Place', 0, 3)",
            // Ann, Bob (an Employee, married to Cy, whose favorite is the cat Tom), Cy.
            "INSERT INTO ZPERSON VALUES (1, 4, 1, 'Ann', NULL, NULL, NULL, NULL, NULL), (2, 3, 1, 'Bob', 3, 4, 2, 1, 'CEO'), (3, 4, 1, 'Cy', 2, 3, NULL, NULL, NULL)",
            "INSERT INTO ZPET VALUES (1, 2, 1, 'Rex', 2, 3, NULL, 'collie'), (2, 1, 1, 'Tom', 2, 3, 'grey', NULL)",
            "INSERT INTO ZPLACE VALUES (1, 6, 1, 'Paris'), (2, 6, 1, 'Rome'), (3, 6, 1, 'Oslo')",
            "INSERT INTO Z_4BOOKMARKS VALUES (1, 1), (1, 2)",
            "INSERT INTO Z_4ROUTE VALUES (2, 2, 2), (2, 3, 3), (2, 1, 1)",
        ] { try db.execute(statement) }
        try db.run("INSERT INTO Z_METADATA VALUES (1, ?, ?)", [.string("0C1D2E3F-0000-4000-8000-000000000001"), .data(json)])
    }

    @Test func aLegacyStoreIsUpgradedOnceToCoreDatasFormat() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeLegacyStore(store.url, model: RelationshipShapesTests.model())
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: store.url)[NSStoreUUIDKey] as? String
                == "0C1D2E3F-0000-4000-8000-000000000001")
        let model = RelationshipShapesTests.model()
        let container = try store.container(model)
        let context = container.viewContext
        func one(_ entity: String, _ name: String) throws -> NSManagedObject {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = NSPredicate(format: "name == %@", name)
            return try #require(try context.fetch(request).first)
        }
        let bob = try one("Person", "Bob"), ann = try one("Person", "Ann")
        #expect(bob.entity.name == "Employee" && bob.string("title") == "CEO")
        #expect((bob.value(forKey: "spouse") as? NSManagedObject)?.string("name") == "Cy")
        let favorite = try #require(bob.value(forKey: "favorite") as? NSManagedObject)
        #expect(favorite.entity.name == "Cat" && favorite.string("color") == "grey")
        #expect(Set(bob.set("pets").compactMap { $0.entity.name }) == ["Cat", "Dog"])
        #expect((favorite.value(forKey: "person") as? NSManagedObject)?.entity.name == "Employee")
        #expect(Set(ann.set("bookmarks").compactMap { $0.string("name") }) == ["Paris", "Rome"])
        #expect((bob.value(forKey: "route") as! NSOrderedSet).array.compactMap { ($0 as? NSManagedObject)?.string("name") } == ["Paris", "Rome", "Oslo"])
        #expect(container.persistentStoreCoordinator.persistentStores.first?.identifier == "0C1D2E3F-0000-4000-8000-000000000001")

        // The file: Core Data's metadata and numbering, no table of ours.
        let plist = try VersionHashTests.metadata(of: store.url)
        #expect(plist[NSStoreModelVersionHashesKey] as? [String: Data] == model.entityVersionHashesByName)
        #expect(plist["NSPersistenceFrameworkVersion"] as? Int == 1344)
        #expect(try SQLiteTestAccess.values("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT", store.url) == [
            [.int(1), .string("Person"), .int(0), .int(3)], [.int(2), .string("Employee"), .int(1), .int(0)],
            [.int(3), .string("Pet"), .int(0), .int(2)], [.int(4), .string("Cat"), .int(3), .int(0)],
            [.int(5), .string("Dog"), .int(3), .int(0)], [.int(6), .string("Place"), .int(0), .int(3)],
        ])
        #expect(try SQLiteTestAccess.values("SELECT Z_ENT, Z3_FAVORITE, Z1_SPOUSE FROM ZPERSON ORDER BY Z_PK", store.url) == [
            [.int(1), .null, .null], [.int(2), .int(4), .int(1)], [.int(1), .null, .int(2)],
        ])
        #expect(try SQLiteTestAccess.values("SELECT Z_ENT, Z1_PERSON FROM ZPET ORDER BY Z_PK", store.url) == [[.int(5), .int(2)], [.int(4), .int(2)]])
        #expect(try SQLiteTestAccess.values("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", store.url).map { $0[0] } == [
            "ZPERSON", "ZPET", "ZPLACE", "Z_1BOOKMARKS", "Z_1FRIENDS", "Z_1ROUTE", "Z_METADATA", "Z_PRIMARYKEY",
        ].map { .string($0) })
        #expect(try SQLiteTestAccess.values("SELECT Z_1TRAVELLERS, Z_6ROUTE, Z_FOK_6ROUTE FROM Z_1ROUTE ORDER BY Z_FOK_6ROUTE", store.url)
                == [[.int(2), .int(1), .int(1)], [.int(2), .int(2), .int(2)], [.int(2), .int(3), .int(3)]])

        // Once: a second open finds Core Data's format and changes nothing.
        let plistBytes = try SQLiteTestAccess.values("SELECT Z_PLIST FROM Z_METADATA", store.url)
        _ = try store.container(RelationshipShapesTests.model())
        #expect(try SQLiteTestAccess.values("SELECT Z_PLIST FROM Z_METADATA", store.url) == plistBytes)
    }

    /// The upgrade is one transaction: when a step fails (here a table in the way of a renamed join
    /// table), the store keeps its legacy form entirely and the error names the file.
    @Test func aFailedUpgradeLeavesTheLegacyStoreWhole() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeLegacyStore(store.url, model: RelationshipShapesTests.model())
        do {
            let db = try SQLiteConnection(path: store.url.path)
            try db.execute("CREATE TABLE Z_1ROUTE (X INTEGER)")
        }
        let snapshot = "SELECT (SELECT group_concat(Z_ENT) FROM ZPERSON), (SELECT group_concat(Z_NAME) FROM Z_PRIMARYKEY), (SELECT Z_VALUE FROM Z_OCDGENERATION), (SELECT hex(Z_PLIST) FROM Z_METADATA), (SELECT count(*) FROM Z_4ROUTE)"
        let before = try SQLiteTestAccess.values(snapshot, store.url)
        let error = #expect(throws: CoreDataError.self) { _ = try store.container(RelationshipShapesTests.model()) }
        #expect(error?.message.contains(store.url.path) == true)
        #expect(try SQLiteTestAccess.values(snapshot, store.url) == before)
    }
}

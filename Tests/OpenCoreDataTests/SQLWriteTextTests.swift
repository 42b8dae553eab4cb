import Foundation
@testable import OpenCoreData
import Testing
import OpenCoreDataTesting

/// The exact SQL of the writes and schema changes, which are values (``SQLWrite``, ``SQLSchemaChange``)
/// printed by the SQLite printer: what a new store's `sqlite_master` holds, and the save's statements.
@Suite("Generated SQL text: writes and schema")
struct SQLWriteTextTests {
    private func productsStore() throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        return coordinator
    }

    @Test func anEntityTableAndItsRowStatements() throws {
        let store = try productsStore().sqlite
        let table = try #require(store.tables.values.first { $0.name == "ZPRODUCTS" })
        #expect(SQLitePrinter.sql(table.createTable()) == "CREATE TABLE ZPRODUCTS ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPRICE INTEGER, ZNAME VARCHAR )")
        #expect(store.insertSQL.values.first == "INSERT INTO ZPRODUCTS (Z_PK, Z_ENT, Z_OPT, ZNAME, ZPRICE) VALUES (?, ?, ?, ?, ?)")
        let update = SQLUpdate(table: "ZPRODUCTS", assignments: ["Z_OPT", "ZNAME"].map { SQLAssignment($0) }, conditions: [.equals("Z_PK"), .equals("Z_OPT")])
        #expect(SQLitePrinter.text(.update(update)) == "UPDATE ZPRODUCTS SET Z_OPT = ?, ZNAME = ? WHERE Z_PK = ? AND Z_OPT = ?")
    }

    @Test func valuesAreBoundNeverSpliced() {
        var context = SQLGenerationContext()
        let delete = SQLDelete(table: "ZPRODUCTS", conditions: [.equals("Z_PK", .parameter(.int(7))), .equals("Z_OPT", .parameter(.int(2)))])
        #expect(SQLitePrinter.sql(.delete(delete), &context) == "DELETE FROM ZPRODUCTS WHERE Z_PK = ? AND Z_OPT = ?")
        #expect(context.arguments == [.int(7), .int(2)])
        context = SQLGenerationContext()
        #expect(SQLitePrinter.sql(CoreDataTables.advanceKeys(root: 3, to: 120), &context) == "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        #expect(context.arguments == [.int(120), .int(3)])
        context = SQLGenerationContext()
        #expect(SQLitePrinter.sql(CoreDataTables.writeMetadata(Data([1]), uuid: "U"), &context) == "UPDATE Z_METADATA SET Z_PLIST = ?, Z_UUID = ? WHERE Z_VERSION = 1")
        #expect(context.arguments == [.data(Data([1])), .string("U")])
    }

    @Test func joinRowsIgnoreAndUpsert() {
        let pair = SQLInsert(into: "Z_1ZOOS", columns: ["Z_1ANIMALS", "Z_2ZOOS"], conflict: .ignore)
        #expect(SQLitePrinter.text(.insert(pair)) == "INSERT OR IGNORE INTO Z_1ZOOS (Z_1ANIMALS, Z_2ZOOS) VALUES (?, ?)")
        let ordered = SQLInsert(into: "Z_1ZOOS", columns: ["Z_1ANIMALS", "Z_2ZOOS", "Z_FOK_1ANIMALS"],
                                conflict: .update(key: ["Z_1ANIMALS", "Z_2ZOOS"], columns: ["Z_FOK_1ANIMALS"]))
        #expect(SQLitePrinter.text(.insert(ordered))
                == "INSERT INTO Z_1ZOOS (Z_1ANIMALS, Z_2ZOOS, Z_FOK_1ANIMALS) VALUES (?, ?, ?) ON CONFLICT (Z_1ANIMALS, Z_2ZOOS) DO UPDATE SET Z_FOK_1ANIMALS = excluded.Z_FOK_1ANIMALS")
        let nullify = SQLUpdate(table: "ZANIMAL", assignments: [SQLAssignment("ZZOO", .null), SQLAssignment("Z_OPT", .arithmetic(.name("Z_OPT"), .add, .integer(1)))],
                                conditions: [.equals("Z_PK")])
        #expect(SQLitePrinter.text(.update(nullify)) == "UPDATE ZANIMAL SET ZZOO = NULL, Z_OPT = (Z_OPT + 1) WHERE Z_PK = ?")
    }

    @Test func coreDataTablesAsCoreDataWritesThem() {
        #expect(SQLitePrinter.sql(CoreDataTables.primaryKey) == "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        #expect(SQLitePrinter.sql(CoreDataTables.metadata) == "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        let history = HistoryTables.schema.map(SQLitePrinter.sql)
        #expect(history.first == "CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )")
        #expect(history.last == "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)")
        #expect(SQLitePrinter.sql(HistoryTables.tombstoneColumn(2)) == "ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE2")
        #expect(SQLitePrinter.text(HistoryTables.changeRow(tombstones: 1))
                == "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE0) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)")
        let join = SQLSchemaChange.createTable(SQLCreateTable(name: "Z_1ZOOS", columns: [.init("Z_1ANIMALS", .integer), .init("Z_2ZOOS", .integer)],
                                                              primaryKey: ["Z_1ANIMALS", "Z_2ZOOS"]))
        #expect(SQLitePrinter.sql(join) == "CREATE TABLE Z_1ZOOS ( Z_1ANIMALS INTEGER, Z_2ZOOS INTEGER, PRIMARY KEY (Z_1ANIMALS, Z_2ZOOS) )")
    }

    @Test func anIndexConditionHoldsConstantsInTheText() {
        let index = SQLCreateIndex(name: "Z_Book_cheap", table: "ZBOOK", columns: [.init("ZPRICE", ascending: false)], ifNotExists: true,
                                   condition: .and([.compare(.name("ZTITLE"), .notEqual, .constant(.string("it's"))), .not(.isNull(.name("ZPRICE")))]))
        #expect(SQLitePrinter.sql(.createIndex(index))
                == "CREATE INDEX IF NOT EXISTS Z_Book_cheap ON ZBOOK (ZPRICE COLLATE BINARY DESC) WHERE (ZTITLE <> 'it''s' AND NOT COALESCE(ZPRICE IS NULL, 0))")
        #expect(SQLitePrinter.sql(.dropIndex("Z_Book_cheap", ifExists: true)) == "DROP INDEX IF EXISTS Z_Book_cheap")
    }

    /// What runs is what prints: a new store file's catalog holds the printed schema, statement for statement.
    @Test func aNewStoreHoldsThePrintedSchema() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let sqlite = try container.persistentStoreCoordinator.sqlite
        let expected = Set([SQLitePrinter.sql(CoreDataTables.primaryKey), SQLitePrinter.sql(CoreDataTables.metadata)]
                           + sqlite.tables.values.map { SQLitePrinter.sql($0.createTable()) })
        var catalog = Set<String>()
        try sqlite.read { db in
            try db.query("SELECT sql FROM sqlite_master WHERE type = 'table'") { row in
                if case .string(let sql) = row.value(0, as: .stringAttributeType) { catalog.insert(sql) }
            }
        }
        #expect(catalog == expected)
    }
}

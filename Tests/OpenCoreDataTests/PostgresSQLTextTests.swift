import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The exact PostgreSQL text of the PostgreSQL store's statements (values bound as `$n`, never in the
/// text), printed from the same query values as SQLite's, and what the printer refuses.
@Suite("Generated SQL text: PostgreSQL")
struct PostgresSQLTextTests {
    private func sql(_ configure: (NSFetchRequest<Products>) -> Void, _ selection: FetchSelection? = nil) throws -> (String, [Value]) {
        let model = makeProductsModel()
        try model.freeze()
        let request = NSFetchRequest<Products>(entityName: "Products")
        configure(request)
        let plan = try FetchPlan(request, model: model)
        let table = TableInfo(root: model.entitiesByName["Products"]!, entities: model.entities)
        var context = SQLGenerationContext()
        let text = try PostgresPrinter.sql(try SQLSelect(fetching: plan, selection ?? .objects(table.selectColumns), limited: true), &context)
        return (text, context.arguments)
    }

    @Test func fetchesWithNumberedPlaceholders() throws {
        let columns = "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME FROM ZPRODUCTS t0"
        #expect(try sql { _ in }.0 == "\(columns) ORDER BY t0.Z_PK NULLS FIRST")
        let sorted = try sql { $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: false)] }
        #expect(sorted.0 == "\(columns) ORDER BY t0.ZNAME COLLATE \"C\" NULLS FIRST, t0.ZPRICE DESC NULLS LAST, t0.Z_PK NULLS FIRST")
        let cheap = try sql { $0.predicate = NSPredicate(format: "name == %@ AND price < %d", "Колбаса «Молочная»", 500) }
        #expect(cheap.0 == "\(columns) WHERE (t0.ZNAME = $1 AND t0.ZPRICE < $2) ORDER BY t0.Z_PK NULLS FIRST")
        #expect(cheap.1 == [.string("Колбаса «Молочная»"), .int(500)])
        #expect(try sql { $0.predicate = NSPredicate(format: "name != nil OR NOT price > 3"); $0.fetchOffset = 2 }.0
                == "\(columns) WHERE (t0.ZNAME IS NOT NULL OR NOT COALESCE(t0.ZPRICE > $1, FALSE)) ORDER BY t0.Z_PK NULLS FIRST OFFSET 2")
        #expect(try sql({ $0.fetchLimit = 12; $0.fetchOffset = 2 }, .count).0
                == "SELECT COUNT(*) FROM (SELECT t0.Z_PK FROM ZPRODUCTS t0 ORDER BY t0.Z_PK NULLS FIRST LIMIT 12 OFFSET 2) w")
    }

    /// What PostgreSQL cannot evaluate as memory does is refused by the printer (the store then has the
    /// context judge and sort in memory), never printed as something close.
    @Test func stringOperationsAndCollationsAreRefused() throws {
        #expect(throws: PostgresPrinter.Unsupported.self) { try sql { $0.predicate = NSPredicate(format: "name CONTAINS[cd] %@", "колбаса") } }
        #expect(throws: PostgresPrinter.Unsupported.self) { try sql { $0.predicate = NSPredicate(format: "name BEGINSWITH %@", "К") } }
        #expect(throws: PostgresPrinter.Unsupported.self) {
            try sql { $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))] }
        }
    }

    @Test func writesAndSchema() throws {
        var context = SQLGenerationContext()
        let delete = SQLDelete(table: "ZPRODUCTS", conditions: [.equals("Z_PK", .parameter(.int(7))), .equals("Z_OPT", .parameter(.int(2)))])
        #expect(try PostgresPrinter.sql(.delete(delete), &context) == "DELETE FROM ZPRODUCTS WHERE Z_PK = $1 AND Z_OPT = $2")
        #expect(context.arguments == [.int(7), .int(2)])
        context = SQLGenerationContext()
        let pair = SQLInsert(into: "Z_1ZOOS", columns: ["Z_1ANIMALS", "Z_2ZOOS"], rows: [[.parameter(.int(1)), .parameter(.int(2))]], conflict: .ignore)
        #expect(try PostgresPrinter.sql(.insert(pair), &context) == "INSERT INTO Z_1ZOOS (Z_1ANIMALS, Z_2ZOOS) VALUES ($1, $2) ON CONFLICT DO NOTHING")
        #expect(try PostgresPrinter.sql(CoreDataTables.primaryKey) == "CREATE TABLE Z_PRIMARYKEY (Z_ENT BIGINT PRIMARY KEY, Z_NAME TEXT, Z_SUPER BIGINT, Z_MAX BIGINT)")
        #expect(try PostgresPrinter.sql(CoreDataTables.metadata) == "CREATE TABLE Z_METADATA (Z_VERSION BIGINT PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BYTEA)")
        let model = makeProductsModel()
        try model.freeze()
        let table = TableInfo(root: model.entitiesByName["Products"]!, entities: model.entities)
        #expect(try PostgresPrinter.sql(table.createTable())
                == "CREATE TABLE ZPRODUCTS (Z_PK BIGINT PRIMARY KEY, Z_ENT BIGINT, Z_OPT BIGINT, ZPRICE BIGINT, ZNAME TEXT)")
        let partial = SQLCreateIndex(name: "ZPRODUCTS_ZNAME_INDEX", table: "ZPRODUCTS", columns: [.init("ZNAME", ascending: true)], unique: true,
                                     ifNotExists: true, condition: .compare(.name("ZPRICE"), .greaterThan, .constant(.int(0))))
        #expect(try PostgresPrinter.sql(.createIndex(partial)) == "CREATE UNIQUE INDEX IF NOT EXISTS ZPRODUCTS_ZNAME_INDEX ON ZPRODUCTS (ZNAME ASC) WHERE ZPRICE > 0")
    }

    /// `OPENCOREDATA_STORE_URL` for a container's default store: a path, a `file:` URL, or a PostgreSQL
    /// URL that gets the container's name as its schema when it names none.
    @Test func theEnvironmentPicksTheStore() {
        let name = "Zoo Keeper-2"
        #expect(NSPersistentContainer.environmentStoreURL(name: name, [:]) == nil)
        #expect(NSPersistentContainer.environmentStoreURL(name: name, ["OPENCOREDATA_STORE_URL": "/tmp/x.sqlite"]) == URL(fileURLWithPath: "/tmp/x.sqlite"))
        #expect(NSPersistentContainer.environmentStoreURL(name: name, ["OPENCOREDATA_STORE_URL": "postgres://u@h:5/db"])?.absoluteString
                == "postgres://u@h:5/db?schema=zoo_keeper_2")
        #expect(NSPersistentContainer.environmentStoreURL(name: name, ["OPENCOREDATA_STORE_URL": "postgresql://u@h/db?schema=app"])?.absoluteString
                == "postgresql://u@h/db?schema=app")
    }

    /// A session that records each statement and answers every query with one row holding 0.
    final class RecordingSession: PostgresSession {
        var statements: [String] = []
        var binds: [[PostgresDatum]] = []
        func run(_ sql: String, _ binds: [PostgresDatum]) throws -> PostgresResult {
            statements.append(sql)
            self.binds.append(binds)
            return PostgresResult(rows: sql.hasPrefix("SELECT") ? [[.int(0), .text("x"), .int(0)]] : [], affected: 0)
        }
    }

    /// The statements of an in-place migration on PostgreSQL (MigPost gains an optional `subtitle`; the
    /// many-to-many join table is rebuilt from its pairs): `?` numbered `$n` outside quoted text, the old
    /// join table's primary-key index renamed with it, pairs copied with `ON CONFLICT DO NOTHING`, every
    /// index of the entity tables dropped and made again.
    @Test func anInPlaceMigrationsStatements() throws {
        #expect(PostgresMigrationDatabase.numbered("a = ? AND b = '?' AND c = ?") == "a = $1 AND b = '?' AND c = $2")
        let source = try NSPersistentStoreCoordinator(validatingModel: LightweightMigrationModelTests.version1()).managedObjectModel
        let destination = LightweightMigrationModelTests.version2 {
            $0.entitiesByName["MigPost"]!.properties.append(NSAttributeDescription(name: "subtitle", type: .stringAttributeType))
        }
        _ = try NSPersistentStoreCoordinator(validatingModel: destination)
        var tables: [Int: TableInfo] = [:]
        for root in destination.entities where root.superentity == nil { tables[root.layout.entityID] = TableInfo(root: root, entities: destination.entities) }
        let migration = try InPlaceMigration.plan(metadata: StoreMetadata.plist(for: source), model: destination, tables: tables, path: "postgres://test",
                                                  knownSource: source)
        let session = RecordingSession()
        try migration.run(PostgresMigrationDatabase(session: session), metadata: StoreMetadata.plist(for: source))
        let indexes = """
            SELECT c.relname, t.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
            WHERE t.relnamespace = current_schema()::regnamespace AND NOT i.indisprimary ORDER BY c.relname
            """
        let expected = [
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE $1 ORDER BY table_name",
            "ALTER TABLE Z_1TAGS RENAME TO Z_OCDMIGRATING_Z_1TAGS",
            "ALTER INDEX IF EXISTS Z_1TAGS_pkey RENAME TO Z_OCDMIGRATING_Z_1TAGS_pkey",
            "CREATE TABLE Z_1TAGS (Z_1POSTS BIGINT, Z_2TAGS BIGINT, PRIMARY KEY (Z_1POSTS, Z_2TAGS))",
            "INSERT INTO Z_1TAGS (Z_1POSTS, Z_2TAGS) SELECT e.Z_1POSTS, e.Z_2TAGS FROM Z_OCDMIGRATING_Z_1TAGS e WHERE 1 = 1 ON CONFLICT DO NOTHING",
            "ALTER TABLE ZMIGPOST ADD COLUMN ZSUBTITLE TEXT",
            "DROP TABLE Z_OCDMIGRATING_Z_1TAGS",
            indexes,
            "CREATE INDEX Z_1TAGS_Z_2TAGS_INDEX ON Z_1TAGS (Z_2TAGS, Z_1POSTS)",
            "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY",
            "DELETE FROM Z_PRIMARYKEY",
            "SELECT coalesce(max(Z_PK), 0) FROM ZMIGPOST",
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES ($1, $2, $3, $4)",
            "SELECT coalesce(max(Z_PK), 0) FROM ZMIGTAG",
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES ($1, $2, $3, $4)",
            "UPDATE Z_METADATA SET Z_PLIST = $1 WHERE Z_VERSION = 1",
        ]
        #expect(session.binds.first == [.text("z\\_ocdmigrating\\_%")])
        #expect(session.binds[12] == [.int(1), .text("MigPost"), .int(0), .int(0)])
        #expect(session.statements == expected)
    }
}


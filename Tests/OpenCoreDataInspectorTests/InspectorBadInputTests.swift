import Foundation
import OpenCoreDataInspector
import Testing

/// Bad input, as a user would give it to `ocd-store`: a clear message on standard error naming the file
/// or the part of the request at fault, nothing on standard output, and the exit status docs/Inspector.md
/// lists (1 for a file, 64 for a request).
@Suite struct InspectorBadInputTests {
    @Test func pathsThatAreNotStores() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let missing = folder.path("missing.sqlite"), empty = folder.path("empty.sqlite"), text = folder.path("notes.txt")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        _ = FileManager.default.createFile(atPath: text, contents: Data("not a database, though longer than SQLite's hundred-byte header: ".utf8 + Data(count: 100)))
        let expected = [
            (missing, "there is no file at this path"),
            (folder.url.path, "it is a folder, not a store file"),
            (empty, "the file is empty (0 bytes), not a SQLite database"),
            (text, "it is not a SQLite database (it does not start with SQLite's header, \"SQLite format 3\")"),
        ]
        for (path, why) in expected {
            let result = try OCDStoreTool.run([path])
            #expect(result.status == 1, "\(path)")
            #expect(result.errors == "ocd-store: cannot read the store \(path): \(why)\n")
            #expect(result.output.isEmpty)
        }
    }

    /// Another program's SQLite database: named as not a Core Data store, with its tables.
    @Test func aSQLiteDatabaseThatIsNotAStore() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let path = folder.path("other.db")
        try damage(path, "CREATE TABLE people (name TEXT); CREATE TABLE pets (name TEXT)")
        let result = try OCDStoreTool.run([path])
        #expect(result.status == 1)
        #expect(result.errors == "ocd-store: cannot read the store \(path): it is a SQLite database but not a Core Data store: there is no Z_METADATA table (its tables: people, pets)\n")
    }

    /// A store whose metadata is not a property list and whose Z_MAX is below its largest key: the report
    /// shows what it can and lists the problems; exit status 1.
    @Test func aDamagedStoreIsReportedWithItsProblems() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try AppleStores.copy("bookmigration", "Model1.sqlite", to: folder)
        try damage(store, "UPDATE Z_METADATA SET Z_PLIST = X'00010203'; UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'User'")
        let result = try OCDStoreTool.run([store])
        #expect(result.status == 1)
        #expect(result.output.contains("Metadata (Z_METADATA: Z_VERSION 1, Z_PLIST unreadable)\n"))
        #expect(result.output.hasSuffix("""
            Problems
              Z_METADATA.Z_PLIST (4 bytes) is not a property list: the store's metadata is unreadable.
              ZUSER holds Z_PK 3, above User's Z_MAX 1 in Z_PRIMARYKEY: new objects would reuse keys.

            """))
    }

    /// An entity table without Core Data's columns (here without Z_ENT), and an entity without a table: the
    /// rest of the report is there, the problems listed.
    @Test func entityTablesThatAreNotCoreDatas() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try AppleStores.copy("bookmigration", "Model1.sqlite", to: folder)
        try damage(store, "DROP TABLE ZUSER; CREATE TABLE ZUSER (Z_PK INTEGER PRIMARY KEY, ZUSERID INTEGER); DROP TABLE ZBOOK")
        let result = try OCDStoreTool.run([store])
        #expect(result.status == 1)
        #expect(result.output.contains("""
              1      Book    -       12     (missing)  ?
              2      User    -       3      ZUSER      ?

            """))
        #expect(result.output.hasSuffix("""
            Problems
              Entity Book (Z_ENT 1) has no table ZBOOK.
              ZUSER cannot be read as User's table (Core Data's Z_PK and Z_ENT columns): SQLite cannot read it: no such column: Z_ENT

            """))
    }

    /// An unknown entity names the model's entities; a malformed --where gives the parser's position with
    /// a caret; an unknown sort key is named; each exits 64.
    @Test func requestsThatCannotMeanAnything() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let (store, model) = try ZooStore.make(in: folder)
        let cases: [([String], String)] = [
            (["--fetch", "Animals"], "ocd-store: unknown entity \"Animals\": model version \"Zoo\" has Animal, Classification, Zoo\n"),
            (["--fetch", "Animal", "--where", "habitat == == 'x'"], """
                ocd-store: --where: Unable to parse the format string "habitat == == 'x'": expected an expression, found "==" at offset 11
                habitat == == 'x'
                           ^

                """),
            (["--fetch", "Animal", "--where", "habitat BEGINSWITH"], """
                ocd-store: --where: Unable to parse the format string "habitat BEGINSWITH": expected an expression, found end of input at offset 18
                habitat BEGINSWITH
                                  ^

                """),
            (["--fetch", "Animal", "--sort", "-"], "ocd-store: --sort: \"-\" names no key (write KEY, or -KEY for descending)\n"),
        ]
        for (arguments, message) in cases {
            let result = try OCDStoreTool.run([store, "--model", model] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errors == message)
            #expect(result.output.isEmpty)
        }
        let unknownKey = try OCDStoreTool.run([store, "--model", model, "--fetch", "Animal", "--sort", "weight"])
        #expect(unknownKey.status == 64)
        #expect(unknownKey.errors.hasPrefix("ocd-store: the fetch failed: "))
        #expect(unknownKey.errors.contains("weight"))
    }

    /// Options that do not go together are the argument parser's usage errors (exit 64), before any file
    /// is read.
    @Test func optionsThatDoNotGoTogether() throws {
        let cases: [([String], String)] = [
            (["store.sqlite", "--fetch", "Animal"], "Error: --fetch needs --model: the model that wrote the store\n"),
            (["store.sqlite", "--where", "a == 1"], "Error: --where, --sort, --limit and --json go with --fetch ENTITY\n"),
            (["store.sqlite", "--model", "M.xcdatamodeld", "--fetch", "A", "--limit", "0"], "Error: --limit must be at least 1\n"),
            ([], "Error: Missing expected argument '<store>'\n"),
        ]
        for (arguments, message) in cases {
            let result = try OCDStoreTool.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errors.hasPrefix(message), "\(result.errors)")
        }
        let help = try OCDStoreTool.run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("  --sort <key>            Sort by this key path, ascending; -KEY sorts\n"))
    }
}

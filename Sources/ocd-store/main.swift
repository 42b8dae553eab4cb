import ArgumentParser
import Foundation
import Logging
import OpenCoreDataInspector

// The store inspector (docs/Inspector.md): what a Core Data SQLite store file holds, which model version
// wrote it, and the objects a fetch finds in it. Never writes the file.

struct OCDStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocd-store",
        abstract: "Inspect a Core Data SQLite store file (read-only).",
        discussion: """
            Without options: the store's metadata (type, UUID, framework version, entity version hashes), its \
            entities with row counts and every table's row count, read from SQLite. With --model: which version \
            of the model wrote the store, or entity by entity what differs. With --fetch: the objects found, \
            fetched through OpenCoreData with the matching model version.

            Exit status: 0 success; 1 the store or model cannot be read or opened, or the report lists problems; \
            64 a wrong request (options, unknown entity or key, malformed --where).
            """)

    @Argument(help: "The store file (its -wal file beside it is read too).")
    var store: String

    @Option(help: ArgumentHelp("An .xcdatamodeld folder (every version is compared) or an .xcdatamodel.", valueName: "model"))
    var model: String?

    @Option(help: ArgumentHelp("Fetch the objects of this entity (needs --model).", valueName: "entity"))
    var fetch: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("An NSPredicate format string, values written in it: \"title BEGINSWITH 'A'\".", valueName: "format"))
    var predicate: String?

    @Option(parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Sort by this key path, ascending; -KEY sorts descending. Repeat for more keys.", valueName: "key"))
    var sort: [String] = []

    @Option(help: ArgumentHelp("Fetch at most this many objects.", valueName: "count"))
    var limit: Int?

    @Flag(help: "Print the fetched objects as JSON instead of a table.")
    var json = false

    func validate() throws {
        if fetch == nil, predicate != nil || !sort.isEmpty || limit != nil || json {
            throw ValidationError("--where, --sort, --limit and --json go with --fetch ENTITY")
        }
        if fetch != nil, model == nil {
            throw ValidationError("--fetch needs --model: the model that wrote the store")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let options = fetch.map { FetchOptions(entity: $0, predicate: predicate, sort: sort, limit: limit) }
        do {
            let output = try StoreInspector.run(store: store, model: model, fetch: options, json: json)
            print(output.text, terminator: "")
            if output.exitCode != 0 { throw ExitCode(output.exitCode) }
        } catch let error as InspectorError {
            FileHandle.standardError.write(Data("ocd-store: \(error)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }
}

// OpenCoreData's warnings (a model class not found: the inspector works on plain NSManagedObject) are
// expected here; errors still show.
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .error
    return handler
}
OCDStore.main()

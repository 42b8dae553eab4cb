// swift-tools-version:6.0
import PackageDescription
import CompilerPluginSupport

let package = Package(
    name: "OpenCoreData",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        .library(name: "OpenCoreDataPredicates", targets: ["OpenCoreDataPredicates"]),
        .library(name: "OpenCoreDataTesting", targets: ["OpenCoreDataTesting"]),
        // What the demos ship with (and the tests use): UIKit's table batch rules without a screen, and the
        // demos' models with their seeded data.
        .library(name: "TableUpdates", targets: ["TableUpdates"]),
        .library(name: "DemoModels", targets: ["DemoModels"]),
        // SwiftData's API over OpenCoreData (docs/SwiftData.md): @Model classes, ModelContainer, ModelContext.
        .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
        // The PostgreSQL store (docs/PostgreSQL.md): linking it registers the store type; an app that does
        // not use it never builds SwiftNIO.
        .library(name: "OpenCoreDataPostgres", targets: ["OpenCoreDataPostgres"]),
        // Xcode's class codegen for a target's .xcdatamodeld (docs/ModelFiles.md, "Generated classes").
        .plugin(name: "OpenCoreDataCodegen", targets: ["OpenCoreDataCodegen"]),
        .executable(name: "ocd-codegen", targets: ["ocd-codegen"]),
        .executable(name: "trips", targets: ["trips"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The @Managed macro's implementation (docs/ModelClasses.md).
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
        // `swift package generate-documentation` (the DocC catalogs in Sources/*/*.docc); a plugin only, which
        // no target depends on.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Command-line options of the executables (ocd-store, products, zoo); no library target depends on it.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The PostgreSQL store's driver; only OpenCoreDataPostgres depends on it.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // zlib, for the tests that read Core Data's compressed model cache in Apple's store files
        // (Tests/OpenCoreDataTests/AppleArchiveTests.swift).
        .systemLibrary(name: "CZlib", path: "Tests/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "OpenCoreDataPredicates"),
        // The strict XML parser of model files, shared by OpenCoreData and the class generator.
        .target(name: "OpenCoreDataModelXML"),
        // @Managed / @ManagedAccessor, the stand-ins for @NSManaged (declared in OpenCoreData/Objects/Managed.swift):
        // the compiler plugin, and the macros in a library of their own (Syntax/) that the macro tests use
        // (a test target depending on a macro target would make SwiftPM build every test target for the host).
        .macro(name: "OpenCoreDataMacros", dependencies: [
            "OpenCoreDataMacroSyntax",
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], exclude: ["Syntax"]),
        .target(name: "OpenCoreDataMacroSyntax", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        ], path: "Sources/OpenCoreDataMacros/Syntax"),
        // The bounds of the linker section where each @Managed property leaves its record.
        .target(name: "CManagedSection"),
        // Whether a withObservationTracking closure runs on the calling thread (managed objects' Observation).
        .target(name: "CObservationScope"),
        // The Swift runtime's swift_tryRetain (the managed object's link to its OpenSwiftData model).
        .target(name: "CRuntimeRetain"),
        .target(name: "OpenCoreData", dependencies: [
            "OpenCoreDataPredicates", "OpenCoreDataModelXML", "CSQLite", "CManagedSection", "CObservationScope", "CRuntimeRetain", "OpenCoreDataMacros",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // SwiftData's model layer on top of the Core Data API, as Apple's sits on Core Data; its macros are
        // served by the same plugin as @Managed.
        .target(name: "OpenSwiftData", dependencies: [
            "OpenCoreData", "OpenCoreDataMacros", .product(name: "Logging", package: "swift-log"),
        ]),
        // The PostgreSQL store's connection to the server (postgres-nio, on an event loop group of its own),
        // and the load-time hook that registers the store type when the module is linked.
        .target(name: "COpenCoreDataPostgresLoad"),
        .target(name: "OpenCoreDataPostgres", dependencies: [
            "OpenCoreData", "COpenCoreDataPostgresLoad",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The terminal table (docs/LiveTables.md): UITableView's batch API on a full-screen terminal, driven by
        // a fetched results controller's delegate; `products --live` and `zoo --live`.
        .target(name: "TerminalTable", dependencies: ["OpenCoreData", "TableUpdates", "DemoModels"]),
        .executableTarget(name: "products", dependencies: [
            "OpenCoreData", "DemoModels", "TableUpdates", "TerminalTable", .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "zoo", dependencies: [
            "OpenCoreData", "DemoModels", "TableUpdates", "TerminalTable", .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // SwiftData's SampleTrips model layer on a real store (docs/SwiftData.md): `swift run trips`.
        .executableTarget(name: "trips", dependencies: ["OpenSwiftData"]),
        // The store inspector (docs/Inspector.md): a store file's metadata, entities, row counts and matching
        // model version, read from SQLite; rows fetched through the Core Data API. The logic is the library,
        // ocd-store its command line.
        .target(name: "OpenCoreDataInspector", dependencies: ["OpenCoreData", "CSQLite"]),
        .executableTarget(name: "ocd-store", dependencies: [
            "OpenCoreDataInspector", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // UIKit's batch-update rules and error texts without a screen (HeadlessTableView), and the fetched
        // results controller delegate the seeds write (PrintingTableDelegate): the terminal table, the demos
        // and the tests apply batches through them.
        .target(name: "TableUpdates", dependencies: ["OpenCoreData"]),
        // The demos' models and seeded data: seed 000's Products as an app ships it (an Xcode model folder,
        // found through Bundle.module: SeedModel), seed 003's Zootastic (ZooModel), the seeded generator.
        .target(name: "DemoModels", dependencies: ["OpenCoreData"], resources: [.copy("Resources/Products.xcdatamodeld")]),
        // Test support (re-exports TableUpdates and DemoModels): chaos trials, child processes, test models.
        .target(name: "OpenCoreDataTesting", dependencies: ["OpenCoreData", "TableUpdates", "DemoModels"]),
        // The class generator. It reads model files with the shared XML parser, not through OpenCoreData: a
        // plugin's tool is built apart for the build machine, so depending on the library would compile it
        // twice in every clean build of a target using the plugin (docs/ModelFiles.md, "Generated classes").
        .target(name: "OpenCoreDataGenerator", dependencies: ["OpenCoreDataModelXML"]),
        .executableTarget(name: "ocd-codegen", dependencies: ["OpenCoreDataGenerator"]),
        .plugin(name: "OpenCoreDataCodegen", capability: .buildTool(), dependencies: ["ocd-codegen"]),
        // The crash, history and cross-process tests' child process; with OpenCoreDataPostgres, a postgres:// store too.
        .executableTarget(name: "ocd-crash-writer", dependencies: ["OpenCoreData", "OpenCoreDataTesting", "OpenCoreDataPostgres"]),
        // libFuzzer targets (Scripts/fuzz.sh builds them with -sanitize=fuzzer); a plain build replays corpora.
        .executableTarget(name: "ocd-fuzz", dependencies: ["OpenCoreData", "OpenCoreDataPredicates", "OpenCoreDataTesting"]),
        // The inspector's reports (exact text, on the Apple-written fixture stores in Tests/Fixtures/AppleStores), its
        // fetches, its bad input, and that it never writes a store; it runs ocd-store as a user would.
        .testTarget(name: "OpenCoreDataInspectorTests", dependencies: ["OpenCoreDataInspector", "OpenCoreDataTesting", "CSQLite", "ocd-store"]),
        // The terminal table's renderer and batches, and `products --live` / `zoo --live` driven in tmux as a
        // person uses them, each screen checked against a fresh fetch of the store.
        .testTarget(name: "TerminalTableTests", dependencies: ["TerminalTable", "OpenCoreDataTesting", "products", "zoo"]),
        .testTarget(name: "OpenCoreDataPredicatesTests", dependencies: ["OpenCoreDataPredicates", "OpenCoreDataTesting"]),
        // The concurrency tests (contexts on queues, readers and the writer, change sequences, observation,
        // progressive batches, remote change notifications): a target of their own, so that CI builds only them
        // and what they need under ThreadSanitizer (Tests/ThreadSanitizer, a package over these files).
        .testTarget(name: "OpenCoreDataConcurrencyTests", dependencies: ["OpenCoreData", "OpenCoreDataTesting"]),
        .testTarget(name: "OpenCoreDataTests", dependencies: ["OpenCoreData", "OpenCoreDataTesting", "OpenCoreDataPostgres", "ocd-crash-writer", "CZlib"],
                    // An Xcode model folder, kept as Xcode saves it (docs/ModelFiles.md).
                    resources: [.copy("Resources/Zoo.xcdatamodeld"),
                                // Xcode mapping models with the models they map (MappingModelFileTests).
                                .copy("Resources/wibosco-CoreDataMigration-Example"),
                                .copy("Resources/wibosco-CoreDataMigration-Example-extended")]),
        // An app target using the codegen plugin, as a port from Xcode would: a model with codegen "class" and
        // "category", no class files but the category's class; it inserts, saves and fetches through the
        // generated classes (swift run zoo-codegen; OpenCoreDataGeneratorTests runs it). Not a dependency of
        // the tests: a test target links an executable's module, and its @Managed classes Animal, Zoo… would
        // meet OpenCoreDataTesting's in the test program (a class found by its name alone must be unique).
        .executableTarget(name: "zoo-codegen", dependencies: ["OpenCoreData"],
                          resources: [.copy("Zootastic.xcdatamodeld")],
                          plugins: ["OpenCoreDataCodegen"]),
        // Core Data's idioms that capture what is not Sendable in `perform`, `performAndWait`,
        // `performBackgroundTask` and notification blocks, compiled in the Swift 6 language mode (pinned
        // here, whatever the package's default) as a library written for Swift 6 is (docs/APICoverage.md).
        .testTarget(name: "OpenCoreDataSwift6Tests", dependencies: ["OpenCoreData"],
                    swiftSettings: [.swiftLanguageMode(.v6)]),
        // The macros' expansions and diagnostics, through swift-syntax's expansion test support (its generic
        // form, reporting to Swift Testing).
        .testTarget(name: "OpenCoreDataMacrosTests", dependencies: [
            "OpenCoreDataMacroSyntax",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
        ]),
        // OpenSwiftData from Apple's documentation: models, schema, container, context, fetching; stores it writes
        // opened through OpenCoreData, both ways. SampleTrips' models are the `trips` demo's (@testable import trips).
        .testTarget(name: "OpenSwiftDataTests", dependencies: ["OpenSwiftData", "OpenCoreData", "OpenCoreDataTesting", "OpenCoreDataPostgres", "trips"]),
        // The model file parser: every construct it accepts and every error it gives.
        .testTarget(name: "OpenCoreDataModelXMLTests", dependencies: ["OpenCoreDataModelXML"]),
        // The DocC articles' examples (Sources/*/*.docc), one test each, on the Library model (an Xcode model
        // folder, as an app ships it); SnippetTests checks that every Swift block of the articles is one of them.
        .testTarget(name: "DocumentationExamplesTests", dependencies: ["OpenCoreData", "OpenCoreDataPredicates", "OpenSwiftData"],
                    resources: [.copy("Library.xcdatamodeld")]),
        .testTarget(name: "OpenCoreDataGeneratorTests", dependencies: ["OpenCoreDataGenerator", "OpenCoreData", "ocd-codegen"],
                    resources: [.copy("Resources/Everything.xcdatamodeld")]),
    ],
    swiftLanguageModes: [.v6]
)


// swift-tools-version:6.0
import PackageDescription

// Benchmarks of OpenCoreData against the SQLite C API and GRDB, in a package of their own so that the
// library itself does not depend on GRDB. Run from the repository root:
//
//     swift run -c release --package-path Benchmarks compare [--rows N] [--repetitions R]
let package = Package(
    name: "OpenCoreDataBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "OpenCoreData", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The system SQLite for the raw C API baseline (the library's own CSQLite is not a product).
        .systemLibrary(name: "CSQLiteBench", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(name: "compare", dependencies: [
            .product(name: "OpenCoreData", package: "OpenCoreData"),
            .product(name: "OpenCoreDataTesting", package: "OpenCoreData"),
            .product(name: "GRDB", package: "GRDB.swift"),
            "CSQLiteBench",
        ]),
        // OpenSwiftData's @Model against OpenCoreData's @Managed classes doing the same work (README, "SwiftData").
        .executableTarget(name: "compare-swiftdata", dependencies: [
            .product(name: "OpenSwiftData", package: "OpenCoreData"),
            .product(name: "OpenCoreData", package: "OpenCoreData"),
        ]),
        // The PostgreSQL store against postgres-nio running the same SQL (README, "PostgreSQL"): an
        // executable of its own, so that `compare` (which CI runs) never builds SwiftNIO.
        .executableTarget(name: "compare-postgres", dependencies: [
            .product(name: "OpenCoreDataPostgres", package: "OpenCoreData"),
            .product(name: "OpenCoreDataTesting", package: "OpenCoreData"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
        // Several processes on one PostgreSQL database (README, "PostgreSQL"): change delivery latency
        // with 4 saving processes, and the chaos trials (writers killed, the server restarted).
        .executableTarget(name: "postgres-live", dependencies: [
            .product(name: "OpenCoreDataPostgres", package: "OpenCoreData"),
            .product(name: "OpenCoreDataTesting", package: "OpenCoreData"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.2
import PackageDescription

// The browser live table (docs/LiveTables.md, "The browser table"): a package of its own, so that the
// library keeps no server dependency. Hummingbird 2 serves one page and a WebSocket; each connection gets
// its own context and NSFetchedResultsController, whose delegate calls go to the page as JSON batches.
let package = Package(
    name: "LiveTable",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "OpenCoreData", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // The protocol (messages, the decoder that never traps), the per-connection session, the write gate.
        .target(name: "LiveTableKit", dependencies: [
            .product(name: "OpenCoreData", package: "OpenCoreData"),
            .product(name: "DemoModels", package: "OpenCoreData"),
        ], resources: [.copy("Resources/index.html"), .copy("Resources/app.js")]),
        // The server: `live-table --store PATH|postgres://… --port N --writers N --fresh --count N --verify`;
        // OpenCoreDataPostgres makes a postgres:// store open (several processes on one database).
        .executableTarget(name: "live-table", dependencies: [
            "LiveTableKit",
            .product(name: "OpenCoreDataPostgres", package: "OpenCoreData"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        ]),
        .testTarget(name: "LiveTableKitTests", dependencies: [
            "LiveTableKit",
            .product(name: "OpenCoreDataTesting", package: "OpenCoreData"),
        ]),
    ]
)

// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        .library(name: "OpenCoreDataPredicates", targets: ["OpenCoreDataPredicates"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "OpenCoreDataPredicates"),
        .target(name: "OpenCoreData", dependencies: ["OpenCoreDataPredicates", "CSQLite"]),
        .testTarget(name: "OpenCoreDataPredicatesTests", dependencies: ["OpenCoreDataPredicates"]),
        .testTarget(name: "OpenCoreDataTests", dependencies: ["OpenCoreData"]),
    ],
    swiftLanguageModes: [.v6]
)

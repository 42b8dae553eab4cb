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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The @Managed macro's implementation (docs/ModelClasses.md).
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "OpenCoreDataPredicates"),
        // @Managed / @ManagedAccessor, the stand-ins for @NSManaged (declared in OpenCoreData/Objects/Managed.swift).
        .macro(name: "OpenCoreDataMacros", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ]),
        // The bounds of the linker section where each @Managed property leaves its record.
        .target(name: "CManagedSection"),
        .target(name: "OpenCoreData", dependencies: [
            "OpenCoreDataPredicates", "CSQLite", "CManagedSection", "OpenCoreDataMacros",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "products", dependencies: [
            "OpenCoreData", "OpenCoreDataTesting", .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "zoo", dependencies: [
            "OpenCoreData", "OpenCoreDataTesting", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "OpenCoreDataTesting", dependencies: ["OpenCoreData"]),
        .executableTarget(name: "ocd-crash-writer", dependencies: ["OpenCoreData", "OpenCoreDataTesting"]),
        // libFuzzer targets (Scripts/fuzz.sh builds them with -sanitize=fuzzer); a plain build replays corpora.
        .executableTarget(name: "ocd-fuzz", dependencies: ["OpenCoreData", "OpenCoreDataPredicates", "OpenCoreDataTesting"]),
        .testTarget(name: "OpenCoreDataPredicatesTests", dependencies: ["OpenCoreDataPredicates", "OpenCoreDataTesting"]),
        .testTarget(name: "OpenCoreDataTests", dependencies: ["OpenCoreData", "OpenCoreDataTesting", "ocd-crash-writer"],
                    // An Xcode model folder, kept as Xcode saves it (docs/ModelFiles.md).
                    resources: [.copy("Resources/Zoo.xcdatamodeld")]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
// The concurrency tests under ThreadSanitizer (.ci/run): the root package's OpenCoreDataConcurrencyTests
// (Tests/OpenCoreDataConcurrencyTests, linked here) built with only what they need, so that the sanitized
// build leaves out the PostgreSQL store's dependencies and the other test targets.
import PackageDescription

let package = Package(
    name: "ThreadSanitizerTests",
    dependencies: [.package(name: "OpenCoreData", path: "../..")],
    targets: [
        .testTarget(name: "OpenCoreDataConcurrencyTests", dependencies: [
            .product(name: "OpenCoreData", package: "OpenCoreData"),
            .product(name: "OpenCoreDataTesting", package: "OpenCoreData"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)

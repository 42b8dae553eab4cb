import Foundation
import Testing

/// `products` and `zoo` read their options with swift-argument-parser, as ocd-store does: every flag they
/// accepted before still works (.ci/run calls `--fresh --store`), Core Data's launch arguments included,
/// and a wrong option is a usage error (exit 64).
@Suite struct DemoCommandLineTests {
    @Test func productsAcceptsEveryFlag() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let result = try OCDStoreTool.run(tool: "products", [
            "--fresh", "--store", folder.path("products.sqlite"), "--count", "3", "--seed", "2", "--sql",
            "-com.apple.CoreData.SQLDebug", "1", "-com.apple.CoreData.ConcurrencyDebug", "1",
        ])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Created 3 products and one favorite in \(folder.path("products.sqlite"))\n"))
        #expect(result.output.contains("CoreData: sql: "))
        #expect(result.output.contains("the FavoriteProducts object is gone"))
        let wrong = try OCDStoreTool.run(tool: "products", ["--count", "many"])
        #expect(wrong.status == 64)
        #expect(wrong.errors.hasPrefix("Error: The value 'many' is invalid for '--count <n>'"), "\(wrong.errors)")
    }

    /// Issue #34 item 6: a store the demo made with version 1 of its model opens with version 2 (the
    /// current one), migrated, with its rows.
    @Test func productsMigratesAStoreOfTheFirstModelVersion() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let path = folder.path("products.sqlite")
        let first = try OCDStoreTool.run(tool: "products", ["--store", path, "--count", "4", "--model-version", "1"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(!first.output.contains("Model version 2"))
        let second = try OCDStoreTool.run(tool: "products", ["--store", path])
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.output.hasPrefix("Migrating \(path) from model version Products to Products 2\nReusing "), "\(second.output.prefix(300))")
        #expect(second.output.contains(" products in \(path)\n"))
        #expect(second.output.contains("Model version 2: category"))
        let third = try OCDStoreTool.run(tool: "products", ["--store", path])
        #expect(!third.output.contains("Migrating"))
        let wrong = try OCDStoreTool.run(tool: "products", ["--store", path, "--model-version", "3"])
        #expect(wrong.status == 64)
    }

    /// Issue #35: the walkthrough in today's Swift (`#Predicate`, key-path and `SortDescriptor` sorts) prints
    /// exactly what the article's format strings and string keys print.
    @Test func productsRunsTheSameWalkthroughTheModernWay() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let path = folder.path("products.sqlite")
        let classic = try OCDStoreTool.run(tool: "products", ["--fresh", "--store", path, "--count", "12", "--seed", "5"])
        let modern = try OCDStoreTool.run(tool: "products", ["--fresh", "--store", path, "--count", "12", "--seed", "5", "--modern"])
        #expect(classic.status == 0 && modern.status == 0, "\(classic.errors)\(modern.errors)")
        #expect(modern.output == classic.output)
        #expect(classic.output.contains("=== predicate: name == %@"))
    }

    @Test func zooAcceptsEveryFlag() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let result = try OCDStoreTool.run(tool: "zoo", ["--fresh", "--store", folder.path("zoo.sqlite"), "--sql"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("relationships intact from both sides after reopening"))
        #expect(result.output.contains("CoreData: sql: "))
        let help = try OCDStoreTool.run(tool: "zoo", ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: zoo [--store <path>] [--sql] [--fresh]"))
        let wrong = try OCDStoreTool.run(tool: "zoo", ["--bogus"])
        #expect(wrong.status == 64)
        #expect(wrong.errors.hasPrefix("Error: Unknown option '--bogus'"))
    }
}

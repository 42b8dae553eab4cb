import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataPredicates

/// wibosco's `Post2ToPost3MigrationPolicy` (the extended example), ported: each post gets one section made
/// of its old `content`.
final class SectionsFromContentPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let post = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first else {
            throw CoreDataError(NSMigrationError, "no post made")
        }
        let body = sInstance.value(forKey: "content") as? String
        let section = NSEntityDescription.insertNewObject(forEntityName: "Section", into: manager.destinationContext)
        section.setValue(body.map { $0.prefix(4) + "..." }, forKey: "title")
        section.setValue(body, forKey: "body")
        section.setValue(post, forKey: "post")
        section.setValue(0, forKey: "index")
    }
}

/// Xcode's mapping model files (`.xcmappingmodel`) read into `NSMappingModel`, on wibosco's samples
/// (Resources/wibosco-CoreDataMigration-Example*, MIT) and the Apple-written stores of the same models.
@Suite struct MappingModelFileTests {
    static let samples = Bundle.module.url(forResource: "wibosco-CoreDataMigration-Example", withExtension: nil)!
    static let extended = Bundle.module.url(forResource: "wibosco-CoreDataMigration-Example-extended", withExtension: nil)!

    /// A version of a sample's model, its objects of class `NSManagedObject`.
    static func model(_ folder: URL, _ version: String) throws -> NSManagedObjectModel {
        let model = try #require(try NSManagedObjectModel(validatingContentsOf: folder.appendingPathComponent("CoreDataMigration_Example.xcdatamodeld"))
            .versions.first { $0.versionName == version })
        for entity in model.entities { entity.managedObjectClassName = "NSManagedObject" }
        return model
    }

    static func text(_ expression: NSExpression?) -> String? { expression.map { "\($0)" } }
    static func text(_ format: String) -> String { "\(NSExpression(format: format))" }

    static func fetch(_ entity: String, _ predicate: String = "TRUEPREDICATE") -> String {
        text("FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"\(entity)\", \"\(predicate)\"), $manager.sourceContext, NO)")
    }

    static func expressions(_ mappings: [NSPropertyMapping]?) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (mappings ?? []).map { ($0.name ?? "", text($0.valueExpression) ?? "none") })
    }

    @Test func version1To2IsOneTransformOfPostWithTheRenamedAttribute() throws {
        let mapping = try #require(NSMappingModel(contentsOf: Self.samples.appendingPathComponent("Migration1to2.xcmappingmodel")))
        let (v1, v2) = (try Self.model(Self.samples, "CoreDataMigration_Example"), try Self.model(Self.samples, "CoreDataMigration_Example 2"))
        let post = try #require(mapping.entityMappings.first)
        #expect(mapping.entityMappings.count == 1)
        #expect(post.name == "PostToPost")
        #expect(mapping.entityMappingsByName["PostToPost"] === post)
        #expect(post.mappingType == .transformEntityMappingType)
        #expect(post.sourceEntityName == "Post" && post.destinationEntityName == "Post")
        #expect(post.sourceEntityVersionHash == v1.entitiesByName["Post"]?.versionHash)
        #expect(post.destinationEntityVersionHash == v2.entitiesByName["Post"]?.versionHash)
        #expect(post.entityMigrationPolicyClassName == nil)
        #expect(Self.text(post.sourceExpression) == Self.fetch("Post"))
        #expect(post.attributeMappings?.map(\.name) == ["date", "hexColor", "postID"], "in the destination entity's order")
        #expect(Self.expressions(post.attributeMappings) == ["date": Self.text("$source.date"), "hexColor": Self.text("$source.color"),
                                                            "postID": Self.text("$source.postID")])
        #expect(post.relationshipMappings?.isEmpty == true)
    }

    @Test func version2To3AddsColorAndNamesThePolicy() throws {
        let mapping = try NSMappingModel(validatingContentsOf: Self.samples.appendingPathComponent("Migration2to3.xcmappingmodel"))
        let v3 = try Self.model(Self.samples, "CoreDataMigration_Example 3")
        #expect(mapping.entityMappings.map(\.name) == ["Color", "PostToPost"], "in mappingnumber order")
        let color = try #require(mapping.entityMappingsByName["Color"])
        #expect(color.mappingType == .addEntityMappingType)
        #expect(color.sourceEntityName == nil && color.sourceEntityVersionHash == nil && color.sourceExpression == nil)
        #expect(color.destinationEntityVersionHash == v3.entitiesByName["Color"]?.versionHash)
        #expect(Self.expressions(color.attributeMappings) == ["colorID": "none", "hex": "none"])
        #expect(Self.expressions(color.relationshipMappings) == ["post": "none"])
        let post = try #require(mapping.entityMappingsByName["PostToPost"])
        #expect(post.mappingType == .transformEntityMappingType)
        #expect(post.entityMigrationPolicyClassName == "CoreDataMigration_Example.Post2ToPost3MigrationPolicy")
        #expect(Self.expressions(post.attributeMappings) == ["date": Self.text("$source.date"), "postID": Self.text("$source.postID")])
        #expect(Self.expressions(post.relationshipMappings) == ["color": "none"], "the source Post has no color: nothing is generated")
    }

    @Test func theExtendedExampleAddsSections() throws {
        let mapping = try NSMappingModel(validatingContentsOf: Self.extended.appendingPathComponent("Migration2to3ModelMapping.xcmappingmodel"))
        #expect(mapping.entityMappings.map(\.name) == ["Section", "PostToPost"])
        #expect(mapping.entityMappings.map(\.mappingType) == [.addEntityMappingType, .transformEntityMappingType])
        let post = try #require(mapping.entityMappingsByName["PostToPost"])
        #expect(post.attributeMappings?.map(\.name) == ["date", "hexColor", "postID"])
        #expect(Self.expressions(post.attributeMappings)["hexColor"] == Self.text("$source.hexColor"))
        #expect(Self.expressions(post.relationshipMappings) == ["sections": "none"])
    }

    @Test func aVersion1StoreMigratesToVersion2ByTheMappingModel() throws {
        let pair = try #require(try VersionHashTests.pairs().first { $0.fixture == "wibosco-migration" && $0.store == "CoreDataMigration_Example_1.sqlite" })
        let copy = try FixtureCopy(pair)
        defer { copy.cleanUp() }
        let (v1, v2) = (try Self.model(Self.samples, "CoreDataMigration_Example"), try Self.model(Self.samples, "CoreDataMigration_Example 2"))
        let mapping = try #require(NSMappingModel(contentsOf: Self.samples.appendingPathComponent("Migration1to2.xcmappingmodel")))
        let destination = copy.directory.directory.appendingPathComponent("Migrated.sqlite")
        try NSMigrationManager(sourceModel: v1, destinationModel: v2)
            .migrateStore(from: copy.url, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)

        func rows(_ url: URL, _ model: NSManagedObjectModel, _ keys: [String]) throws -> [[String]] {
            let context = try MigrationManagerTests().context(url, model)
            return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Post")).map { post in
                keys.map { key in post.value(forKey: key).map { "\($0)" } ?? "nil" }
            }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        let before = try rows(copy.url, v1, ["postID", "date", "color"])
        #expect(!before.isEmpty)
        #expect(try rows(destination, v2, ["postID", "date", "hexColor"]) == before)
    }

    @Test func theExtendedMigrationRunsWithAPortedPolicy() throws {
        let pair = try #require(try VersionHashTests.pairs().first { $0.fixture == "wibosco-migration-revised" && $0.store == "CoreDataMigration_Example_2.sqlite" })
        let copy = try FixtureCopy(pair)
        defer { copy.cleanUp() }
        let (v2, v3) = (try Self.model(Self.extended, "CoreDataMigration_Example 2"), try Self.model(Self.extended, "CoreDataMigration_Example 3"))
        let mapping = try #require(NSMappingModel(from: [Bundle.module], forSourceModel: v2, destinationModel: v3))
        #expect(mapping.entityMappingsByName["Section"] != nil)
        mapping.entityMappingsByName["PostToPost"]?.entityMigrationPolicyClassName = "OpenCoreDataTests.SectionsFromContentPolicy"
        let destination = copy.directory.directory.appendingPathComponent("Migrated.sqlite")
        try NSMigrationManager(sourceModel: v2, destinationModel: v3)
            .migrateStore(from: copy.url, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)

        let source = try MigrationManagerTests().context(copy.url, v2)
        let contents = try source.fetch(NSFetchRequest<NSManagedObject>(entityName: "Post")).map { ($0.value(forKey: "postID") as? String ?? "", $0.value(forKey: "content") as? String) }
        let reader = try MigrationManagerTests().context(destination, v3)
        let posts = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Post"))
        #expect(!posts.isEmpty && posts.count == contents.count)
        let bodies = Dictionary(uniqueKeysWithValues: posts.map { post in
            (post.value(forKey: "postID") as? String ?? "",
             post.mutableSetValue(forKey: "sections").allObjects.map { ($0 as? NSManagedObject)?.value(forKey: "body") as? String })
        })
        for (id, content) in contents { #expect(bodies[id] == [content]) }
    }

    @Test func aBundleGivesTheMappingModelOfTheTwoVersions() throws {
        let v1 = try Self.model(Self.samples, "CoreDataMigration_Example")
        let v2 = try Self.model(Self.samples, "CoreDataMigration_Example 2")
        let v3 = try Self.model(Self.samples, "CoreDataMigration_Example 3")
        let first = try #require(NSMappingModel(from: [Bundle.module], forSourceModel: v1, destinationModel: v2))
        #expect(first.entityMappings.map(\.name) == ["PostToPost"])
        #expect(Self.expressions(first.entityMappings.first?.attributeMappings)["hexColor"] == Self.text("$source.color"))
        let second = try #require(NSMappingModel(fromBundles: [Bundle.module], forSourceModel: v2, destinationModel: v3))
        #expect(second.entityMappings.map(\.name) == ["Color", "PostToPost"])
        #expect(NSMappingModel(from: [Bundle.module], forSourceModel: v1, destinationModel: v3) == nil, "no mapping model from 1 to 3")
        #expect(NSMappingModel(from: [Bundle.module], forSourceModel: v2, destinationModel: v1) == nil)
        #expect(NSMappingModel(from: [Bundle.module], forSourceModel: nil, destinationModel: v2) == nil)
        #expect(NSMappingModel(from: [], forSourceModel: v1, destinationModel: v2) == nil)
    }
}

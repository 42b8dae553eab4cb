import Foundation
import OpenCoreData
import Testing

/// `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)` on the versions of the Apple
/// fixtures' model files (renames through `elementID`, added and removed properties and entities), and
/// the changes Core Data does not infer.
@Suite("Migration: inferred mapping models")
struct MappingInferenceTests {
    private func model(_ fixture: String, _ version: String) throws -> NSManagedObjectModel {
        try #require(try VersionHashTests.model(fixture, version: version), "\(fixture) \(version)")
    }

    private func properties(_ mapping: NSEntityMapping, _ key: String) -> Set<String> {
        mapping.userInfo?[key] as? Set<String> ?? []
    }

    /// CoreDataPlus's SampleModel → SampleModel2: `LuxuryCar` carries `elementID="ExpensiveSportCar"`.
    @Test func aRenamedEntityMapsFromItsRenamingIdentifier() throws {
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: model("coredataplus-samplemodel", "SampleModel"),
                                                              destinationModel: model("coredataplus-samplemodel", "SampleModel2"))
        let luxury = try #require(mapping.entityMappings.first { $0.destinationEntityName == "LuxuryCar" })
        #expect(luxury.sourceEntityName == "ExpensiveSportCar")
        #expect(luxury.mappingType == .transformEntityMappingType, "the name is part of the version hash")
        #expect(!mapping.entityMappings.contains { $0.mappingType == .removeEntityMappingType || $0.mappingType == .addEntityMappingType })
        #expect(luxury.name.hasPrefix("IEM_") && mapping.entityMappingsByName[luxury.name] === luxury)
        #expect(luxury.sourceExpression.map { "\($0)" } == "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"ExpensiveSportCar\", \"TRUEPREDICATE\"), $manager.sourceContext, NO)")
    }

    /// wibosco's revised example: version 2 renames `color` to `hexColor` (`elementID="color"`); version 3
    /// drops the identifier, so by Apple's canonical-name rule `hexColor` is a new attribute there.
    @Test func aRenamedAttributeReadsTheOldColumnUntilTheIdentifierGoes() throws {
        let v1 = try model("wibosco-migration-revised", "CoreDataMigration_Example")
        let v2 = try model("wibosco-migration-revised", "CoreDataMigration_Example 2")
        let v3 = try model("wibosco-migration-revised", "CoreDataMigration_Example 3")
        let first = try #require(try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2).entityMappings
            .first { $0.destinationEntityName == "Post" })
        let hexColor = try #require(first.attributeMappings?.first { $0.name == "hexColor" })
        #expect(hexColor.valueExpression.map { "\($0)" } == "$source.color")
        #expect(properties(first, "mappedProperties").contains("hexColor") && properties(first, "removedProperties").isEmpty)
        let second = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v3)
        let post = try #require(second.entityMappings.first { $0.destinationEntityName == "Post" })
        #expect(properties(post, "addedProperties") == ["hexColor", "sections"])
        #expect(properties(post, "removedProperties") == ["content", "hexColor"])
        #expect(post.attributeMappings?.first { $0.name == "hexColor" }?.valueExpression == nil)
        let section = try #require(second.entityMappings.first { $0.destinationEntityName == "Section" })
        #expect(section.mappingType == .addEntityMappingType && section.sourceEntityName == nil && section.sourceExpression == nil)
    }

    /// DuckDuckGo's bookmarks, version 3 → 4: the to-one `favoriteFolder` becomes the to-many
    /// `favoriteFolders` (`elementID="favoriteFolder"`); versions 1 → 5 in one step too.
    @Test func aRelationshipRenamedAndMadeToManyMapsThroughTheManager() throws {
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: model("ddg-bookmarks", "BookmarksModel 3"),
                                                              destinationModel: model("ddg-bookmarks", "BookmarksModel 4"))
        let bookmarks = try #require(mapping.entityMappings.first { $0.destinationEntityName == "BookmarkEntity" })
        let folders = try #require(bookmarks.relationshipMappings?.first { $0.name == "favoriteFolders" })
        #expect(folders.valueExpression.map { "\($0)" } == "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"favoriteFolder\", $source.favoriteFolder)")
        _ = try NSMappingModel.inferredMappingModel(forSourceModel: model("ddg-bookmarks", "BookmarksModel"),
                                                    destinationModel: model("ddg-bookmarks", "BookmarksModel 5"))
        let same = try NSMappingModel.inferredMappingModel(forSourceModel: model("ddg-bookmarks", "BookmarksModel 5"),
                                                           destinationModel: model("ddg-bookmarks", "BookmarksModel 5"))
        #expect(same.entityMappings.allSatisfy { $0.mappingType == .copyEntityMappingType })
    }

    private static func entity(_ name: String, _ properties: [NSPropertyDescription], renamedFrom old: String? = nil) -> NSEntityDescription {
        let entity = NSEntityDescription(name: name, properties: properties)
        entity.renamingIdentifier = old
        return entity
    }

    @Test func whatCoreDataDoesNotInferThrowsNamingIt() throws {
        func failure(_ source: [NSEntityDescription], _ destination: [NSEntityDescription]) -> String {
            do {
                _ = try NSMappingModel.inferredMappingModel(forSourceModel: NSManagedObjectModel(entities: source),
                                                            destinationModel: NSManagedObjectModel(entities: destination))
                return "inferred"
            } catch {
                #expect((error as NSError).code == NSInferredMappingModelError)
                return "\(error)"
            }
        }
        let typeChange = failure([Self.entity("A", [NSAttributeDescription(name: "n", type: .stringAttributeType)])],
                                 [Self.entity("A", [NSAttributeDescription(name: "n", type: .integer64AttributeType)])])
        #expect(typeChange.contains("attribute n of entity A changed type from String to Integer 64"), "\(typeChange)")
        let twins = failure([Self.entity("A", []), Self.entity("B", [])], [Self.entity("A", []), Self.entity("C", [], renamedFrom: "A")])
        #expect(twins.contains("two entities of the destination model have the canonical name A"), "\(twins)")
        // Two roots in the source under one parent in the destination: hierarchies cannot merge.
        let parent = Self.entity("Vehicle", []), car = Self.entity("Car", []), boat = Self.entity("Boat", [])
        parent.subentities = [car, boat]
        let merged = failure([Self.entity("Car", []), Self.entity("Boat", [])], [parent, car, boat])
        #expect(merged.contains("share a parent in the destination model but not in the source"), "\(merged)")
    }
}

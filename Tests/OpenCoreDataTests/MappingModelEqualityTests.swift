import Foundation
import Testing
@testable import OpenCoreData

/// `NSMappingModel`, `NSEntityMapping` and `NSPropertyMapping` compare by value (`isEqual(_:)`), as
/// `NSManagedObjectModel` does: two mapping models read from one `.xcmappingmodel` are equal.
@Suite struct MappingModelEqualityTests {
    static func read(_ name: String) throws -> NSMappingModel {
        try NSMappingModel(validatingContentsOf: MappingModelFileTests.samples.appendingPathComponent(name))
    }

    @Test func twoReadingsOfOneFileAreEqual() throws {
        let a = try Self.read("Migration1to2.xcmappingmodel"), b = try Self.read("Migration1to2.xcmappingmodel")
        #expect(a !== b)
        #expect(a == b)
        #expect(a.hash == b.hash)
        #expect(a.entityMappings == b.entityMappings)
        for (x, y) in zip(a.entityMappings, b.entityMappings) {
            #expect(x == y)
            #expect(x.attributeMappings == y.attributeMappings)
            #expect(x.relationshipMappings == y.relationshipMappings)
        }
        #expect(a != (try Self.read("Migration2to3.xcmappingmodel")))
    }

    @Test func theMappingABundleGivesEqualsTheFileReadDirectly() throws {
        let v1 = try MappingModelFileTests.model(MappingModelFileTests.samples, "CoreDataMigration_Example")
        let v2 = try MappingModelFileTests.model(MappingModelFileTests.samples, "CoreDataMigration_Example 2")
        let found = try #require(NSMappingModel(from: [Bundle.module], forSourceModel: v1, destinationModel: v2))
        #expect(found == (try Self.read("Migration1to2.xcmappingmodel")))
    }

    @Test func twoInferencesFromTheSameModelsAreEqual() throws {
        let v1 = try MappingModelFileTests.model(MappingModelFileTests.samples, "CoreDataMigration_Example")
        let v2 = try MappingModelFileTests.model(MappingModelFileTests.samples, "CoreDataMigration_Example 2")
        let a = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let b = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        #expect(a == b)
        #expect(NSMappingModel() == NSMappingModel())
        #expect(NSMappingModel() != a)
    }

    /// Every property of an entity mapping takes part: changing any one of them makes two mappings differ.
    @Test func everyEntityMappingPropertyCounts() throws {
        func changes(_ change: (NSEntityMapping) -> Void) throws -> Bool {
            let a = try Self.read("Migration2to3.xcmappingmodel"), b = try Self.read("Migration2to3.xcmappingmodel")
            change(b.entityMappings[0])
            return a != b && a.entityMappings[0] != b.entityMappings[0]
        }
        #expect(try changes { $0.name = "Other" })
        #expect(try changes { $0.mappingType = .removeEntityMappingType })
        #expect(try changes { $0.sourceEntityName = "Other" })
        #expect(try changes { $0.sourceEntityVersionHash = Data([1]) })
        #expect(try changes { $0.destinationEntityName = "Other" })
        #expect(try changes { $0.destinationEntityVersionHash = Data([1]) })
        #expect(try changes { $0.attributeMappings = ($0.attributeMappings ?? []) + [NSPropertyMapping(name: "extra", valueExpression: nil)] })
        #expect(try changes { $0.relationshipMappings = [NSPropertyMapping(name: "extra", valueExpression: nil)] })
        #expect(try changes { $0.sourceExpression = NSExpression(format: "1") })
        #expect(try changes { $0.entityMigrationPolicyClassName = "OtherPolicy" })
        #expect(try changes { $0.userInfo = ["k": "v"] })
    }

    @Test func propertyMappingsCompareNameExpressionAndUserInfo() {
        let a = NSPropertyMapping(name: "title", valueExpression: NSExpression(format: "$source.name"))
        let b = NSPropertyMapping(name: "title", valueExpression: NSExpression(format: "$source.name"))
        #expect(a == b)
        #expect(a.hash == b.hash)
        #expect(a != NSPropertyMapping(name: "title", valueExpression: NSExpression(format: "$source.other")))
        #expect(a != NSPropertyMapping(name: "other", valueExpression: NSExpression(format: "$source.name")))
        #expect(a != NSPropertyMapping(name: "title", valueExpression: nil))
        b.userInfo = ["kept": Set(["x"])]
        #expect(a != b)
        a.userInfo = ["kept": Set(["x"])]
        #expect(a == b)
        a.userInfo = ["kept": Set(["y"])]
        #expect(a != b)
        #expect(!a.isEqual("title"))
    }
}

import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPredicates
import OpenCoreDataTesting

/// `init?(coder:)` and `encode(with:)` of the model classes, with the keys of Apple's archives:
/// `NSManagedObjectModel`, `NSEntityDescription`, the property descriptions and `NSFetchRequest`, each
/// decoded from a part of an archive Core Data wrote, and models archived here read back equal.
@Suite("Compiled models: NSCoding of the model classes")
struct CompiledModelCodingTests {
    static let sampleModel2 = VersionHashTests.fixtures.appendingPathComponent("coredataplus-samplemodel2-history/SampleModel2_V1.sqlite")

    /// An archive Core Data wrote, and the same archive with its root moved to one of its objects.
    struct Archive {
        var top: [String: PropertyListTree]
        var objects: [PropertyListTree]

        init(_ data: Data) throws {
            guard case .dictionary(let top) = try PropertyListTree(data), case .array(let objects)? = top["$objects"] else {
                throw CocoaError(.coderReadCorrupt)
            }
            self.top = top
            self.objects = objects
        }

        static func sampleModel2() throws -> Archive {
            _ = CompiledModelTests.coverClassMapped
            return try Archive(try #require(try CompiledModelFixtures.archive(CompiledModelCodingTests.sampleModel2)))
        }

        func className(_ index: Int) -> String? {
            guard case .uid(let c)? = objects[index]["$class"], case .string(let name)? = objects[c]["$classname"] else { return nil }
            return name
        }

        func string(_ value: PropertyListTree?) -> String? {
            guard case .uid(let i)? = value, case .string(let s) = objects[i] else { return nil }
            return s
        }

        /// The object of class `className` whose `key` names `name` (`NSEntityName`, `NSPropertyName`), in the
        /// entity named `entity` for a property.
        func index(of className: String, _ key: String, _ name: String, entity: String? = nil) throws -> Int {
            try #require(objects.indices.first { i in
                guard self.className(i) == className, string(objects[i][key]) == name else { return false }
                guard let entity else { return true }
                guard case .uid(let e)? = objects[i]["NSEntity"] else { return false }
                return string(objects[e]["NSEntityName"]) == entity
            })
        }

        /// The archive with its root at `index`.
        func rooted(at index: Int) -> Data {
            var top = self.top
            top["$top"] = .dictionary(["root": .uid(index)])
            top["$objects"] = .array(objects)
            return PropertyListTree.dictionary(top).binaryData()
        }

        var data: Data { rooted(at: 1) }
    }

    @Test func aModelDecodes() throws {
        let archive = try Archive.sampleModel2()
        let model = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: archive.data))
        let metadata = try VersionHashTests.metadata(of: Self.sampleModel2)
        #expect(model.entityVersionHashesByName == metadata[NSStoreModelVersionHashesKey] as? [String: Data])
    }

    /// An entity alone: its properties (the archive's copies of inherited ones included, as Core Data
    /// writes a subentity), subentities and constraints; its relationships name their destinations.
    @Test func anEntityDecodes() throws {
        let archive = try Archive.sampleModel2()
        let book = try #require(try NSKeyedUnarchiver.unarchivedObject(
            ofClass: NSEntityDescription.self, from: archive.rooted(at: archive.index(of: "NSEntityDescription", "NSEntityName", "Book"))))
        #expect(book.name == "Book" && book.managedObjectClassName == "Book" && !book.isAbstract)
        #expect(book.properties.map(\.name) == ["author", "cover", "pages", "pagesCount", "price", "publishedAt", "title", "uniqueID"])
        #expect(book.subentities.map(\.name) == ["GraphicNovel"] && book.subentities.first?.superentity === book)
        #expect(book.uniquenessConstraints as? [[String]] == [["uniqueID"]])
        let pages = try #require(book.relationshipsByName["pages"])
        #expect(pages.destinationEntity == nil && pages.description == "(pages, to-many Page, inverse book)")
    }

    /// Attributes, relationships, derived attributes and fetched properties, each alone.
    @Test func propertiesDecode() throws {
        let archive = try Archive.sampleModel2()
        func property<T: NSPropertyDescription>(_ cls: T.Type, _ name: String, _ archived: String) throws -> T {
            let index = try archive.index(of: archived, "NSPropertyName", name, entity: "Book")
            return try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: cls, from: archive.rooted(at: index)))
        }
        let title = try property(NSAttributeDescription.self, "title", "NSAttributeDescription")
        #expect(title.attributeType == .stringAttributeType && !title.isOptional && title.validationPredicates.count == 2)
        #expect(title.entity == nil)  // the entity is the one whose properties hold it
        let pages = try property(NSRelationshipDescription.self, "pages", "NSRelationshipDescription")
        #expect(pages.minCount == 1 && pages.maxCount == 10_000 && pages.deleteRule == .cascadeDeleteRule && !pages.isOrdered)
        let count = try property(NSDerivedAttributeDescription.self, "pagesCount", "NSDerivedAttributeDescription")
        #expect(count.derivationExpression?.description == "count:(pages)")
        // A class asked for that the archive does not hold is refused.
        #expect(throws: (any Error).self) { try property(NSRelationshipDescription.self, "title", "NSAttributeDescription") }

        let authorIndex = try archive.index(of: "NSFetchedPropertyDescription", "NSPropertyName", "favFeedbacks", entity: "Author")
        let fetched = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchedPropertyDescription.self, from: archive.rooted(at: authorIndex)))
        #expect(fetched.fetchRequest?.entityName == "Feedback" && fetched.userInfo?["search"] as? String == "great")
    }

    /// A fetch request alone (a fetched property's): its entity, predicate, sort descriptors and flags.
    @Test func aFetchRequestDecodes() throws {
        let archive = try Archive.sampleModel2()
        let property = try archive.index(of: "NSFetchedPropertyDescription", "NSPropertyName", "feedbacks", entity: "Author")
        guard case .uid(let requestIndex)? = archive.objects[property]["NSFetchRequest"] else { Issue.record("no request"); return }
        let request = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchRequest<NSFetchRequestResult>.self, from: archive.rooted(at: requestIndex)))
        #expect(request.entity?.name == "Feedback" && request.entityName == "Feedback")
        #expect(request.predicate?.predicateFormat == "authorAlias == $FETCH_SOURCE.alias")
        #expect(request.sortDescriptors?.first?.key == "rating" && request.sortDescriptors?.first?.ascending == true)
        #expect(request.includesSubentities && request.includesPendingChanges && request.includesPropertyValues && request.returnsObjectsAsFaults)
        #expect(!request.returnsDistinctResults && request.resultType == .managedObjectResultType && request.fetchLimit == 0)
    }

    /// A property archived and unarchived by Foundation's own archiver and unarchiver: `init?(coder:)` and
    /// `encode(with:)` work with any keyed coder, not only this library's.
    @Test func foundationsCodersUseTheSameKeys() throws {
        let attribute = NSAttributeDescription(name: "price", type: .doubleAttributeType, optional: false, defaultValue: 2.5)
        attribute.versionHashModifier = "v2"
        attribute.allowsExternalBinaryDataStorage = true
        #expect(NSAttributeDescription.supportsSecureCoding && NSEntityDescription.supportsSecureCoding && NSManagedObjectModel.supportsSecureCoding)
        #expect(NSFetchRequest<NSFetchRequestResult>.supportsSecureCoding)
        let data = try NSKeyedArchiver.archivedData(withRootObject: attribute as Any, requiringSecureCoding: true)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        let back = try #require(unarchiver.decodeObject(of: [NSAttributeDescription.self], forKey: NSKeyedArchiveRootObjectKey) as? NSAttributeDescription)
        #expect(back.name == "price" && back.attributeType == .doubleAttributeType && !back.isOptional)
        #expect(back.defaultValue as? Double == 2.5 && back.versionHashModifier == "v2" && back.allowsExternalBinaryDataStorage)
        #expect(back.versionHash == attribute.versionHash)
    }

    /// Every model version of the fixtures, archived here and decoded: the same model, the same hashes,
    /// Apple's class names only.
    @Test func fixtureModelsArchiveAndComeBack() throws {
        var checked = 0
        for fixture in try FileManager.default.contentsOfDirectory(atPath: VersionHashTests.fixtures.path).sorted() {
            guard let folder = VersionHashTests.modelFolder(fixture) else { continue }
            for version in try NSManagedObjectModel(validatingContentsOf: folder).versions {
                let data = try NSKeyedArchiver.archivedData(withRootObject: version, requiringSecureCoding: true)
                try Self.expectApplesClassNames(data, "\(fixture) \(version.versionName ?? "?")")
                let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data))
                #expect(back.entityVersionHashesByName == version.entityVersionHashesByName, "\(fixture) \(version.versionName ?? "?")")
                let mine = CompiledModelFixtures.summary(back, full: true), theirs = CompiledModelFixtures.summary(version, full: true)
                #expect(mine == theirs, "\(fixture) \(version.versionName ?? "?"): \(mine.filter { !theirs.contains($0) }) ≠ \(theirs.filter { !mine.contains($0) })")
                checked += 1
            }
        }
        #expect(checked == 34)
    }

    /// Random models (every setting a model keeps), archived and decoded.
    @Test func randomModelsArchiveAndComeBack() throws {
        for seed in UInt64(0)..<150 {
            var generator = RandomModelGenerator(seed: 0xA4C_41E5 &+ seed)
            let model = generator.model()
            let back: NSManagedObjectModel
            do {
                let data = try NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: true)
                back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data))
            } catch {
                Issue.record("seed \(seed): \(error)")
                continue
            }
            #expect(back.entityVersionHashesByName == model.entityVersionHashesByName, "seed \(seed)")
            let mine = CompiledModelFixtures.summary(back, full: true), theirs = CompiledModelFixtures.summary(model, full: true)
            #expect(mine == theirs, "seed \(seed): \(mine.filter { !theirs.contains($0) }) ≠ \(theirs.filter { !mine.contains($0) })")
        }
    }

    /// Our archive of a model names the classes Core Data's does, and writes the keys it writes.
    @Test func ourArchiveHasApplesShape() throws {
        for (fixture, store, version) in [("contentful-test", "Test.sqlite", "Test"), ("coredataplus-samplemodel", "SampleModel_V1.sqlite", "SampleModel")] {
            let apples = try Archive(try #require(try CompiledModelFixtures.archive(VersionHashTests.fixtures.appendingPathComponent(fixture).appendingPathComponent(store))))
            let model = try #require(try VersionHashTests.model(fixture, version: version))
            let ours = try Archive(NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: true))
            for cls in ["NSManagedObjectModel", "NSEntityDescription", "NSAttributeDescription", "NSRelationshipDescription", "NSFetchIndexDescription", "NSFetchIndexElementDescription"] {
                #expect(Self.keys(apples, cls) == Self.keys(ours, cls), "\(fixture) \(cls): only Apple's \(Self.keys(apples, cls).subtracting(Self.keys(ours, cls)).sorted()), only ours \(Self.keys(ours, cls).subtracting(Self.keys(apples, cls)).sorted())")
            }
        }
    }

    static func keys(_ archive: Archive, _ cls: String) -> Set<String> {
        var keys: Set<String> = []
        for i in archive.objects.indices where archive.className(i) == cls {
            if case .dictionary(let d) = archive.objects[i] { keys.formUnion(d.keys) }
        }
        return keys
    }

    /// A composite attribute (`NSCompositeElements`) and a fetch index over an expression
    /// (`NSIndexedProperty`, an `NSExpressionDescription`) come back, and the decoded model stores and
    /// fetches composites.
    @Test func compositesAndExpressionIndexesArchive() throws {
        let model = CompositeAttributeTests.model()
        let place = try #require(model.entitiesByName["Place"])
        let lowered = NSExpressionDescription()
        lowered.name = "loweredName"
        lowered.expression = NSExpression(format: "lowercase:(name)")
        lowered.expressionResultType = .stringAttributeType
        place.indexes = [NSFetchIndexDescription(name: "byLoweredName", elements: [NSFetchIndexElementDescription(property: lowered, collationType: .binary)])]
        let data = try NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data))
        #expect(CompiledModelFixtures.summary(back, full: true) == CompiledModelFixtures.summary(model, full: true))
        let address = try #require(back.entitiesByName["Place"]?.attributesByName["address"] as? NSCompositeAttributeDescription)
        #expect(address.elements.map(\.name) == ["street", "city", "zip", "geo"] && (address.elements[3] as? NSCompositeAttributeDescription)?.elements.count == 2)
        let element = try #require(back.entitiesByName["Place"]?.indexes.first?.elements.first)
        let expression = try #require(element.property as? NSExpressionDescription)
        #expect(expression.name == "loweredName" && expression.expression?.description == "lowercase:(name)" && expression.expressionResultType == .stringAttributeType)

        back.entitiesByName["Place"]?.indexes = []
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(back)
        CompositeAttributeTests.insertFour(container.viewContext)
        try container.viewContext.save()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Place")
        request.predicate = NSPredicate(format: "address.city == %@", "Paris")
        #expect(try container.viewContext.count(for: request) == 2)
    }

    /// A decimal default value, which Foundation's archiver on Linux cannot write, comes back exactly.
    @Test func decimalDefaultsArchive() throws {
        for text in ["0", "12.345", "-98765432109876543210.5", "1e-20"] {
            let price = NSAttributeDescription(name: "price", type: .decimalAttributeType, defaultValue: NSDecimalNumber(string: text))
            let entity = NSEntityDescription(name: "Item", properties: [price])
            let data = try NSKeyedArchiver.archivedData(withRootObject: NSManagedObjectModel(entities: [entity]), requiringSecureCoding: true)
            let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data))
            #expect((back.entitiesByName["Item"]?.attributesByName["price"]?.defaultValue as? NSDecimalNumber)?.decimalValue == Decimal(string: text), "\(text)")
        }
    }

    static func expectApplesClassNames(_ data: Data, _ context: String) throws {
        #expect(data.range(of: Data("OpenCoreData".utf8)) == nil, "\(context)")
        let archive = try Archive(data)
        let names = Set(archive.objects.compactMap { entry -> String? in
            if case .string(let name)? = entry["$classname"] { return name }
            return nil
        })
        let known: Set<String> = ["NSManagedObjectModel", "NSEntityDescription", "NSAttributeDescription", "NSDerivedAttributeDescription",
                                  "NSCompositeAttributeDescription", "NSRelationshipDescription", "NSFetchedPropertyDescription",
                                  "NSFetchRequest", "NSFetchIndexDescription", "NSFetchIndexElementDescription", "NSArray", "NSMutableArray",
                                  "NSDictionary", "NSMutableDictionary", "NSSet", "NSMutableSet", "NSString", "NSDate", "NSUUID", "NSURL", "NSData",
                                  "NSDecimalNumber", "NSSortDescriptor"]
        let unknown = names.filter { !known.contains($0) && !$0.hasSuffix("Predicate") && !$0.hasSuffix("Expression") && !$0.hasSuffix("PredicateOperator") }
        #expect(unknown.isEmpty, "\(context): \(unknown.sorted())")
    }
}

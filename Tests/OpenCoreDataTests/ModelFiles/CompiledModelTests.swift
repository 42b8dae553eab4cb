import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPredicates

/// Core Data's compiled models, against what Apple's Core Data wrote: the model cache (`Z_MODELCACHE`) of
/// every fixture store decodes to the model version that wrote the store (docs/ModelFiles.md, "Compiled
/// models").
@Suite("Compiled models (.mom, Z_MODELCACHE)")
struct CompiledModelTests {
    /// Every store with a model cache and a model file beside it: the decoded model is the model file's
    /// version in what matters (entities, hierarchy, properties, relationships), and its entity version
    /// hashes are the store's `NSStoreModelVersionHashes`, byte for byte.
    @Test func everyStoreModelCacheIsTheModelThatWroteIt() throws {
        var checked = 0, entities = 0
        for pair in try CompiledModelFixtures.cachedPairs() {
            let store = try CompiledModelFixtures.copy(pair.storeURL)
            defer { store.cleanUp() }
            let decoded = try #require(try StoreModelCache.model(ofStoreAt: store.url), "\(pair)")
            let metadata = try VersionHashTests.metadata(of: pair.storeURL)
            let stored = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data], "\(pair)")
            #expect(decoded.entityVersionHashesByName == stored, "\(pair)")
            if let checksum = metadata[NSPersistentStoreModelVersionChecksumKey] as? String { #expect(decoded.versionChecksum == checksum, "\(pair)") }
            entities += stored.count
            guard let source = try VersionHashTests.model(pair.fixture, version: pair.version) else { continue }
            let mine = CompiledModelFixtures.summary(decoded), theirs = CompiledModelFixtures.summary(source)
            #expect(mine == theirs, "\(pair):\n  decoded: \(mine.filter { !theirs.contains($0) })\n  file:    \(theirs.filter { !mine.contains($0) })")
            checked += 1
        }
        #expect(checked == 22 && entities == 48, "\(checked) stores, \(entities) entities")
    }

    static let sampleModel2 = VersionHashTests.fixtures.appendingPathComponent("coredataplus-samplemodel2-history")

    /// The class a transformable default value of SampleModel2 is archived as (`CoreDataPlus_Tests.Cover`),
    /// mapped as an app maps a class its archives name otherwise.
    static let coverClassMapped: Void = NSKeyedUnarchiver.setClass(ArchivedCover.self, forClassName: "CoreDataPlus_Tests.Cover")

    static func sampleModel2(_ store: String) throws -> NSManagedObjectModel {
        _ = coverClassMapped
        let copy = try CompiledModelFixtures.copy(sampleModel2.appendingPathComponent(store))
        defer { copy.cleanUp() }
        return try #require(try StoreModelCache.model(ofStoreAt: copy.url))
    }

    /// SampleModel2 was built in code, so its stores carry the only copy of the model: the one with fetched
    /// properties (their requests, predicates and sort descriptors), validation predicates with messages, a
    /// derivation expression, uniqueness constraints, a configuration, a transformable default of an app
    /// class, inheritance with an abstract root. Its hashes are the stores' metadata.
    @Test(arguments: ["SampleModel2_V1.sqlite", "SampleModel2_V2.sqlite"])
    func sampleModel2HashesAreItsStoresMetadata(_ store: String) throws {
        let model = try Self.sampleModel2(store)
        let metadata = try VersionHashTests.metadata(of: Self.sampleModel2.appendingPathComponent(store))
        let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]
        #expect(model.entityVersionHashesByName == stored, "\(model.entityVersionHashesByName.filter { stored[$0.key] != $0.value }.keys.sorted())")
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(model.entities.compactMap(\.name).sorted() == ["Author", "Book", "Feedback", "GraphicNovel", "Page", "Writer"])
    }

    /// The model read out of the store's own cache opens that store (a copy) and fetches its rows: a store
    /// whose model exists nowhere else (README: ZBOOK 52 rows, ZPAGE 4,970).
    @Test func sampleModel2OpensWithTheModelFromItsOwnCache() throws {
        let model = try Self.sampleModel2("SampleModel2_V1.sqlite")
        // Its classes (CoreDataPlus_Tests.Book, …) are not in this program; by their plain names they would
        // find the documentation examples' Book and Author, which this target is linked with.
        for entity in model.entities { entity.managedObjectClassName = "NSManagedObject" }
        let copy = try CompiledModelFixtures.copy(Self.sampleModel2.appendingPathComponent("SampleModel2_V1.sqlite"))
        defer { copy.cleanUp() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: copy.url, options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        let counts = try context.performAndWait {
            (try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")),
             try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Page")))
        }
        #expect(counts.0 == 52 && counts.1 == 4970, "\(counts)")
    }

    @Test func sampleModel2Structure() throws {
        let model = try Self.sampleModel2("SampleModel2_V1.sqlite")
        let entities = model.entitiesByName
        let writer = try #require(entities["Writer"]), author = try #require(entities["Author"]), book = try #require(entities["Book"])
        #expect(writer.isAbstract && writer.subentities == [author] && author.superentity === writer)
        #expect(entities["GraphicNovel"]?.superentity === book)
        // An inherited property is the superentity's (the archive's copy in the subentity is dropped).
        #expect(author.propertiesByName["age"]?.entity === writer && author.properties.filter { $0.name == "age" }.count == 1)

        let pages = try #require(book.relationshipsByName["pages"]), books = try #require(author.relationshipsByName["books"])
        #expect(pages.destinationEntity === entities["Page"] && pages.inverseRelationship === entities["Page"]?.relationshipsByName["book"])
        #expect(pages.isToMany && !pages.isOptional && pages.minCount == 1 && pages.maxCount == 10_000 && pages.deleteRule == .cascadeDeleteRule)
        #expect(books.maxCount == 4_294_967_295 && books.inverseRelationship === book.relationshipsByName["author"])

        let title = try #require(book.attributesByName["title"])
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 3 AND length <= 50", "SELF CONTAINS \"title\""])
        #expect(title.validationWarnings as? [String] == ["Title must have a length between 3 and 50 chars.", "Title must contain 'title'."])
        #expect(title.validationPredicates[0].evaluate(with: "a title") && !title.validationPredicates[0].evaluate(with: "ab"))
        let pagesCount = try #require(book.attributesByName["pagesCount"] as? NSDerivedAttributeDescription)
        #expect(pagesCount.derivationExpression?.description == "count:(pages)" && pagesCount.attributeType == .integer64AttributeType)
        // Core Data keeps `pages.@count` as `count:(pages)`: either form hashes as the store recorded.
        let bookHash = book.versionHash
        pagesCount.derivationExpression = NSExpression(format: "pages.@count")
        #expect(book.versionHash == bookHash)
        #expect(book.uniquenessConstraints as? [[String]] == [["uniqueID"]] && author.uniquenessConstraints as? [[String]] == [["alias"]])

        let cover = try #require(book.attributesByName["cover"])
        #expect(cover.attributeType == .transformableAttributeType && cover.valueTransformerName == "CoverTransformer" && cover.attributeValueClassName == "Cover")
        #expect((cover.defaultValue as? ArchivedCover)?.text == "default cover")
        #expect(book.attributesByName["price"]?.attributeType == .decimalAttributeType)
        #expect(entities["Feedback"]?.attributesByName["rating"]?.attributeType == .doubleAttributeType)

        let feedbacks = try #require(author.propertiesByName["feedbacks"] as? NSFetchedPropertyDescription)
        let request = try #require(feedbacks.fetchRequest)
        #expect(request.entity === entities["Feedback"] && request.predicate?.predicateFormat == "authorAlias == $FETCH_SOURCE.alias")
        #expect(request.sortDescriptors?.map { "\($0.key ?? "") \($0.ascending)" } == ["rating true"])
        let favourites = try #require(author.propertiesByName["favFeedbacks"] as? NSFetchedPropertyDescription)
        #expect(favourites.userInfo?["search"] as? String == "great")
        #expect(model.configurations == ["SampleConfigurationV1"] && model.entities(forConfigurationName: "SampleConfigurationV1")?.count == 6)

        let renamed = try Self.sampleModel2("SampleModel2_V2.sqlite").entitiesByName["Book"]?.attributesByName["frontCover"]
        #expect(renamed?.renamingIdentifier == "cover")
    }
}

/// The class `CoreDataPlus_Tests.Cover` of SampleModel2's archived default value decodes as (an app's own
/// class, mapped with `NSKeyedUnarchiver.setClass(_:forClassName:)`).
final class ArchivedCover: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let text: String
    init(text: String) { self.text = text }
    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: [NSString.self], forKey: "text") as? String else { return nil }
        self.text = text
    }
    func encode(with coder: NSCoder) { coder.encode(NSString(string: text), forKey: "text") }
}

import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Reading Xcode's model format: every element and attribute lands on the Core Data property that holds
/// it; versioned folders; `nil` for what is not a model.
@Suite("Model files: reading")
struct ModelFileReaderTests {
    func library(_ contents: String = ModelFileFixtures.library) throws -> (NSManagedObjectModel, ModelFolder) {
        let folder = ModelFolder()
        let url = try folder.version("Library", contents: contents)
        return (try NSManagedObjectModel(validatingContentsOf: url), folder)
    }

    @Test func entitiesKeepTheirSettings() throws {
        let (model, folder) = try library()
        defer { folder.cleanUp() }
        #expect(model.entities.map { $0.name! } == ["Item", "Book", "Author", "Chapter", "Shelf"])
        #expect(model.versionIdentifiers == ["v7"])
        let item = try #require(model.entitiesByName["Item"]), book = try #require(model.entitiesByName["Book"])
        #expect(item.isAbstract && !book.isAbstract)
        #expect(item.managedObjectClassName == ".Item", "kept as written; the class lookup resolves it")
        #expect(book.managedObjectClassName == "Library.Book")
        #expect(item.renamingIdentifier == "OldItem" && item.versionHashModifier == "2")
        #expect(item.codeGenerationType == "class" && book.codeGenerationType == "category")
        #expect(model.entitiesByName["Author"]?.codeGenerationType == nil)
        #expect(item.userInfo as? [String: String] == ["owner": "catalog"])
        #expect(book.superentity === item && item.subentities == [book])
        #expect(book.properties.prefix(4).map(\.name) == ["title", "created", "identifier", "canonicalTitle"], "inherited first")
    }

    @Test func attributesKeepEveryOption() throws {
        let (model, folder) = try library()
        defer { folder.cleanUp() }
        let item = model.entitiesByName["Item"]!.attributesByName, book = model.entitiesByName["Book"]!.attributesByName
        let title = try #require(item["title"])
        #expect(title.attributeType == .stringAttributeType && !title.isOptional, "no optional attribute means required")
        #expect(title.defaultValue as? String == "Untitled")
        #expect(title.isIndexedBySpotlight)
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 1", "length <= 80", "SELF MATCHES \"[A-Z].*\""])
        #expect(title.validationWarnings.map { ($0 as? NSNumber)?.intValue } == [NSValidationStringTooShortError, NSValidationStringTooLongError, NSValidationStringPatternMatchingError])
        let created = try #require(item["created"])
        #expect(created.attributeType == .dateAttributeType && created.isOptional)
        #expect(created.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: -725882400))
        #expect(created.validationPredicates.map(\.predicateFormat) == ["SELF >= CAST(-978307200.0, \"NSDate\")", "SELF <= CAST(1000000000.0, \"NSDate\")"])
        #expect(created.validationWarnings.map { ($0 as? NSNumber)?.intValue } == [NSValidationDateTooSoonError, NSValidationDateTooLateError])
        #expect(item["identifier"]?.defaultValue as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let canonical = try #require(item["canonicalTitle"] as? NSDerivedAttributeDescription)
        #expect(canonical.derivationExpression?.description == "canonical:(title)")
        let pages = try #require(book["pages"])
        #expect(pages.attributeType == .integer16AttributeType && pages.usesScalarValueType)
        #expect((pages.defaultValue as? NSNumber)?.intValue == 100)
        #expect(pages.validationPredicates.map(\.predicateFormat) == ["SELF >= 1", "SELF <= 5000"])
        #expect(pages.validationWarnings.map { ($0 as? NSNumber)?.intValue } == [NSValidationNumberTooSmallError, NSValidationNumberTooLargeError])
        #expect(book["isbn"]?.attributeType == .integer64AttributeType && book["isbn"]?.isIndexed == true)
        let copies = try #require(book["copies"])
        #expect((copies.defaultValue as? NSNumber)?.intValue == -3 && !copies.usesScalarValueType)
        #expect(copies.renamingIdentifier == "count" && copies.versionHashModifier == "m")
        #expect(copies.userInfo as? [String: String] == ["unit": "copies & prints"])
        #expect((book["rating"]?.defaultValue as? NSNumber)?.doubleValue == 2.5)
        #expect(book["rating"]?.validationPredicates.map(\.predicateFormat) == ["SELF >= 0.0", "SELF <= 5.5"])
        #expect(book["weight"]?.attributeType == .floatAttributeType && (book["weight"]?.defaultValue as? NSNumber)?.doubleValue == 0.25)
        #expect((book["price"]?.defaultValue as? NSDecimalNumber)?.decimalValue == Decimal(string: "19.99"))
        #expect(book["inPrint"]?.defaultValue as? Bool == true)
        let cover = try #require(book["cover"])
        #expect(cover.attributeType == .binaryDataAttributeType && cover.allowsExternalBinaryDataStorage && cover.preservesValueInHistoryOnDeletion)
        let tags = try #require(book["tags"])
        #expect(tags.attributeType == .transformableAttributeType && tags.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(tags.attributeValueClassName == "[String]" && tags.allowsCloudEncryption)
        #expect(book["homepage"]?.defaultValue as? URL == URL(string: "https://example.org/book"))
        #expect((book["chapterCount"] as? NSDerivedAttributeDescription)?.derivationExpression?.description == "chapters.@count")
        #expect(book["scratch"]?.attributeType == .undefinedAttributeType && book["scratch"]?.isTransient == true)
        #expect(book["source"]?.attributeType == .objectIDAttributeType && book["source"]?.attributeValueClassName == "NSManagedObjectID")
        #expect(book["cover"]?.attributeValueClassName == "NSData", "the type's own class when no customClassName")
    }

    @Test func relationshipsResolveDestinationsAndInverses() throws {
        let (model, folder) = try library()
        defer { folder.cleanUp() }
        let book = model.entitiesByName["Book"]!.relationshipsByName, author = model.entitiesByName["Author"]!
        let toAuthor = try #require(book["author"])
        #expect(!toAuthor.isToMany && toAuthor.maxCount == 1 && toAuthor.isOptional && toAuthor.deleteRule == .nullifyDeleteRule)
        #expect(toAuthor.destinationEntity === author && toAuthor.inverseRelationship === author.relationshipsByName["books"])
        let chapters = try #require(book["chapters"])
        #expect(chapters.isToMany && chapters.isOrdered && chapters.minCount == 1 && chapters.maxCount == 40)
        #expect(!chapters.isOptional && chapters.deleteRule == .cascadeDeleteRule)
        #expect(book["shelves"]?.deleteRule == .denyDeleteRule && book["shelves"]?.renamingIdentifier == "racks")
        #expect(book["shelves"]?.maxCount == 0, "a to-many without maxCount has no maximum")
        let related = try #require(book["related"])
        #expect(related.deleteRule == .noActionDeleteRule && related.inverseRelationship == nil)
        #expect(related.destinationEntity === model.entitiesByName["Book"])
    }

    @Test func fetchedPropertiesIndexesAndConstraints() throws {
        let (model, folder) = try library()
        defer { folder.cleanUp() }
        let book = model.entitiesByName["Book"]!
        let fetched = try #require(book.propertiesByName["sameAuthor"] as? NSFetchedPropertyDescription)
        #expect(fetched.fetchRequest?.entity === book)
        #expect(fetched.fetchRequest?.predicate?.predicateFormat == "author == $FETCH_SOURCE.author AND SELF != $FETCH_SOURCE")
        #expect(book.indexes.map(\.name) == ["byTitle", "byRating"])
        let byTitle = book.indexes[0]
        #expect(byTitle.entity === book)
        #expect(byTitle.elements.map { $0.propertyName } == ["title", "pages"])
        #expect(byTitle.elements.map(\.isAscending) == [true, false])
        #expect(byTitle.elements[0].property === book.propertiesByName["title"])
        let expression = try #require(book.indexes[1].elements.first)
        #expect(expression.collationType == .rTree)
        #expect((expression.property as? NSExpressionDescription)?.expression?.description == "rating")
        #expect((expression.property as? NSExpressionDescription)?.expressionResultType == .doubleAttributeType)
        #expect(book.uniquenessConstraints.map { $0 as? [String] } == [["isbn"], ["title", "author"]])
        let authorIndex = try #require(model.entitiesByName["Author"]?.indexes.first, "compoundIndexes read as a fetch index")
        #expect(authorIndex.name == "compoundIndex1" && authorIndex.elements.map(\.propertyName) == ["name"])
        #expect(model.entitiesByName["Author"]?.compoundIndexes.map { $0 as? [String] } == [["name"]])
        #expect(authorIndex.elements.first?.property === model.entitiesByName["Author"]?.propertiesByName["name"])
    }

    @Test func fetchRequestTemplatesAndConfigurations() throws {
        let (model, folder) = try library()
        defer { folder.cleanUp() }
        let template = try #require(model.fetchRequestTemplate(forName: "LongBooks"))
        #expect(template.entityName == "Book" && template.fetchLimit == 10 && template.fetchBatchSize == 20)
        #expect(template.resultType == .dictionaryResultType)
        #expect(template.includesSubentities && template.returnsDistinctResults)
        #expect(!template.includesPropertyValues && !template.includesPendingChanges && !template.returnsObjectsAsFaults, "an absent flag is NO")
        #expect(template.predicate?.predicateFormat == "pages > $MIN_PAGES AND title BEGINSWITH[c] \"A\"")
        let request = try #require(model.fetchRequestFromTemplate(withName: "LongBooks", substitutionVariables: ["MIN_PAGES": 300]))
        #expect(request.predicate?.predicateFormat == "pages > 300 AND title BEGINSWITH[c] \"A\"")
        #expect(request !== template && request.fetchLimit == 10 && request.entity === template.entity)
        #expect(template.predicate?.predicateFormat.contains("$MIN_PAGES") == true, "the template is unchanged")
        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["AllAuthors", "LongBooks"])
        #expect(model.fetchRequestFromTemplate(withName: "Nope", substitutionVariables: [:]) == nil)
        #expect(model.configurations == ["Local", "Cloud"])
        #expect(model.entities(forConfigurationName: "Cloud")?.map { $0.name! } == ["Author", "Shelf"])
        #expect(model.entities(forConfigurationName: "Local")?.map { $0.name! } == ["Item", "Book", "Chapter"])
        #expect(model.entities(forConfigurationName: nil)?.count == 5)
        #expect(model.entities(forConfigurationName: "Elsewhere") == nil)
    }

    /// The model loads into a SQLite store; objects insert, save and come back; a template fetches.
    @Test func aReadModelRunsAStore() throws {
        let (model, folder) = try library(ModelFileFixtures.libraryOfPlainObjects)
        defer { folder.cleanUp() }
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(model).viewContext
        let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
        author.setValue("Ada", forKey: "name")
        // `isbn` is unique (a uniqueness constraint) and defaults to 0: each book needs its own.
        for (isbn, (title, pages)) in [("Analytical Engines", 420), ("Notes", 120), ("Appendix", 600)].enumerated() {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            #expect(book.value(forKey: "pages") as? Int == 100, "the default value")
            #expect(book.value(forKey: "inPrint") as? Bool == true)
            #expect((book.value(forKey: "price") as? NSDecimalNumber)?.decimalValue == Decimal(string: "19.99"),
                    "exactly: an NSDecimalNumber default is not read through Double")
            book.setValue(title, forKey: "title")
            book.setValue(pages, forKey: "pages")
            book.setValue(isbn + 1, forKey: "isbn")
            book.setValue(author, forKey: "author")
            let chapter = NSEntityDescription.insertNewObject(forEntityName: "Chapter", into: context)
            chapter.setValue(book, forKey: "book")
        }
        try context.save()
        let request = try #require(model.fetchRequestFromTemplate(withName: "LongBooks", substitutionVariables: ["MIN_PAGES": 300]))
        request.resultType = .managedObjectResultType
        let books = try context.fetch(request) as! [NSManagedObject]
        #expect(Set(books.compactMap { $0.value(forKey: "title") as? String }) == ["Analytical Engines", "Appendix"])
    }

    @Test func versionedFolderReadsTheCurrentVersionAndKeepsTheOthers() throws {
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        let url = try folder.bundle("Zoo", versions: [
            ("Zoo", ModelFileFixtures.small(attribute: "first")),
            ("Zoo 2", ModelFileFixtures.small(attribute: "second")),
            ("Zoo 10", ModelFileFixtures.small(attribute: "tenth")),
        ], current: "Zoo 2.xcdatamodel")
        let model = try NSManagedObjectModel(validatingContentsOf: url)
        #expect(model.entitiesByName["Person"]?.attributesByName.keys.sorted() == ["second"])
        #expect(model.versionName == "Zoo 2")
        #expect(model.versions.map(\.versionName) == ["Zoo", "Zoo 2", "Zoo 10"])
        #expect(model.versions[1] === model)
        #expect(model.versions[2].entitiesByName["Person"]?.attributesByName["tenth"] != nil)
        #expect(NSManagedObjectModel(contentsOf: url)?.versionName == "Zoo 2")
    }

    @Test func versionedFolderWithoutCurrentVersionFile() throws {
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        let single = try folder.bundle("One", versions: [("Whatever", ModelFileFixtures.small())], current: nil)
        #expect(try NSManagedObjectModel(validatingContentsOf: single).versionName == "Whatever")
        let named = try folder.bundle("Two", versions: [("Two", ModelFileFixtures.small(attribute: "a")), ("Two 2", ModelFileFixtures.small(attribute: "b"))], current: nil)
        #expect(try NSManagedObjectModel(validatingContentsOf: named).versionName == "Two", "the version named like the folder")
        let ambiguous = try folder.bundle("Three", versions: [("A", ModelFileFixtures.small()), ("B", ModelFileFixtures.small())], current: nil)
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: ambiguous) }
        #expect(error.reason.contains("no .xccurrentversion"))
    }

    @Test func anythingElseIsNil() throws {
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        let file = folder.directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: file)
        let plainFolder = folder.directory.appendingPathComponent("Plain")
        try FileManager.default.createDirectory(at: plainFolder, withIntermediateDirectories: true)
        let compiled = folder.directory.appendingPathComponent("Zoo.momd")
        try FileManager.default.createDirectory(at: compiled, withIntermediateDirectories: true)
        let empty = folder.directory.appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let notModel = try folder.version("Html", contents: "<html><body/></html>")
        for url in [file, plainFolder, compiled, empty, notModel, folder.directory.appendingPathComponent("Missing.xcdatamodeld")] {
            #expect(NSManagedObjectModel(contentsOf: url) == nil, "\(url.lastPathComponent)")
            #expect(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }
        }
    }
}

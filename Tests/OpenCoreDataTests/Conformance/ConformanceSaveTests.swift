import Foundation
import OpenCoreData
import Testing

/// Saves every store takes: inserts, updates and deletes seen by another context, every attribute type
/// read back as saved, a refused save that writes nothing; persistence where the store declares it.
@Suite("Conformance: save")
struct ConformanceSaveTests {
    static let published = Date(timeIntervalSinceReferenceDate: 123_456.5)
    static let isbn = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    /// Inserts a book holding a value of every attribute type and saves.
    static func saveValues(_ context: NSManagedObjectContext) throws {
        try context.performAndWait { () throws in
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("Ünïcode «book»", forKey: "title")
            book.setValue(Int64.max, forKey: "pages")
            book.setValue(NSDecimalNumber(string: "19.99"), forKey: "price")
            book.setValue(-0.25, forKey: "rating")
            book.setValue(true, forKey: "inPrint")
            book.setValue(published, forKey: "published")
            book.setValue(Data([0, 1, 254, 255]), forKey: "cover")
            book.setValue(isbn, forKey: "isbn")
            try context.save()
        }
    }

    /// Reads the book `saveValues` wrote, in a context that has not seen it.
    static func expectValues(_ context: NSManagedObjectContext) throws {
        try context.performAndWait { () throws in
            let book = try #require(try context.fetch(ConformanceModel.request("Book", "cover != nil")).first)
            #expect(book.value(forKey: "title") as? String == "Ünïcode «book»")
            #expect(book.value(forKey: "pages") as? Int64 == Int64.max)
            #expect((book.value(forKey: "price") as? NSDecimalNumber)?.decimalValue == Decimal(string: "19.99"))
            #expect(book.value(forKey: "rating") as? Double == -0.25 && book.value(forKey: "inPrint") as? Bool == true)
            #expect(book.value(forKey: "published") as? Date == published)
            #expect(book.value(forKey: "cover") as? Data == Data([0, 1, 254, 255]))
            #expect(book.value(forKey: "isbn") as? UUID == isbn)
            #expect(book.value(forKey: "author") == nil)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func insertUpdateDeleteAreSeenByAnotherContext(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator()
        let writer = StorePlace.context(of: coordinator), reader = StorePlace.context(of: coordinator)
        try ConformanceModel.seedAuthors(writer)
        #expect(try reader.performAndWait { try ConformanceModel.values("Book", "title", in: reader) } == ["Compiler", "Engine", "Notes", "Sketch"])
        try writer.performAndWait { () throws in
            let books = try writer.fetch(ConformanceModel.request("Book", sortedBy: "title"))
            books[0].setValue("Compilers", forKey: "title")
            writer.delete(books[1])
            try writer.save()
            #expect(!writer.hasChanges)
        }
        try reader.performAndWait { () throws in
            reader.reset()
            #expect(try ConformanceModel.values("Book", "title", in: reader) == ["Compilers", "Notes", "Sketch"])
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func everyAttributeTypeReadsBackAsSaved(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator()
        try Self.saveValues(StorePlace.context(of: coordinator))
        try Self.expectValues(StorePlace.context(of: coordinator))
    }

    @Test(arguments: StoreUnderTest.with(.persistsAcrossCoordinators))
    func aNewCoordinatorReadsWhatWasSaved(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        try Self.saveValues(place.context())
        try ConformanceModel.seedAuthors(place.context())
        let reopened = try place.context()
        try Self.expectValues(reopened)
        try reopened.performAndWait { () throws in
            let ada = try #require(try reopened.fetch(ConformanceModel.request("Author", "name == 'Ada'")).first)
            #expect(((ada.value(forKey: "books") as? Set<NSManagedObject>) ?? []).count == 3)
        }
    }

    @Test(arguments: StoreUnderTest.without(.persistsAcrossCoordinators))
    func aNewCoordinatorStartsEmpty(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        try ConformanceModel.seedAuthors(place.context())
        let reopened = try place.context()
        #expect(try reopened.performAndWait { try reopened.count(for: ConformanceModel.request("Author")) } == 0)
    }

    @Test(arguments: StoreUnderTest.all)
    func aSaveThatFailsValidationWritesNothing(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator()
        let context = StorePlace.context(of: coordinator)
        try ConformanceModel.seedAuthors(context)
        context.performAndWait {
            ConformanceModel.author("Alan", books: ["Computing"], in: context)
            _ = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)  // no name
            let error = #expect(throws: CoreDataError.self) { try context.save() }
            #expect(error?.code == NSValidationMissingMandatoryPropertyError || error?.code == NSValidationMultipleErrorsError)
            #expect(context.hasChanges && context.insertedObjects.count == 3)
        }
        let other = StorePlace.context(of: coordinator)
        try other.performAndWait { () throws in
            #expect(try other.count(for: ConformanceModel.request("Author")) == 2)
            #expect(try other.count(for: ConformanceModel.request("Book")) == 4)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func obtainedPermanentIDsAreKeptBySave(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator()
        let context = StorePlace.context(of: coordinator)
        let id = try context.performAndWait { () throws -> NSManagedObjectID in
            let tag = ConformanceModel.tag("a", "A", in: context)
            #expect(tag.objectID.isTemporaryID)
            try context.obtainPermanentIDs(for: [tag])
            let permanent = tag.objectID
            #expect(!permanent.isTemporaryID)
            try context.save()
            #expect(tag.objectID == permanent)
            return permanent
        }
        let other = StorePlace.context(of: coordinator)
        let label = try other.performAndWait { try other.existingObject(with: id).value(forKey: "label") as? String }
        #expect(label == "A")
        #expect(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()) == id)
    }
}

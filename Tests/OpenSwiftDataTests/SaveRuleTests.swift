import Foundation
import OpenCoreData
import OpenSwiftData
@testable import trips
import Testing

/// Item 10 of the issue: a save that breaks a rule throws, writes nothing (the store's bytes are the same)
/// and leaves the context's changes pending.
@Suite struct SaveRuleTests {
    func library() throws -> (ModelContext, URL) {
        let url = temporaryStoreURL()
        let container = try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let shelf = Shelf(label: "A")
        shelf.books = [Book(isbn: "1", title: "One"), Book(isbn: "2", title: "Two")]
        context.insert(shelf)
        try context.save()
        return (context, url)
    }

    /// The store file and its write-ahead log, byte for byte.
    func bytes(_ url: URL) -> [Data?] {
        ["", "-wal"].map { try? Data(contentsOf: URL(fileURLWithPath: url.path + $0)) }
    }

    @Test func aDenyRuleStopsTheSaveAndWritesNothing() throws {
        let (context, url) = try library()
        let shelf = try #require(try context.fetch(FetchDescriptor<Shelf>()).first)
        let before = bytes(url)
        context.delete(shelf)
        #expect(throws: (any Error).self) { try context.save() }
        #expect(bytes(url) == before)
        #expect(context.hasChanges)
        #expect(context.deletedModelsArray.count == 1)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<Shelf>()) == 1)
    }

    @Test func tooManyModelsInARelationshipStopTheSave() throws {
        let (context, url) = try library()
        let shelf = try #require(try context.fetch(FetchDescriptor<Shelf>()).first)
        let before = bytes(url)
        shelf.books.append(Book(isbn: "3", title: "Three"))
        #expect(throws: (any Error).self) { try context.save() }
        #expect(bytes(url) == before)
        #expect(context.hasChanges)
    }

    @Test func aUniqueValueInsertedAgainUpdatesTheStoredModelAsSwiftDataDoes() throws {
        let (context, _) = try library()
        let again = Book(isbn: "1", title: "One, revised", pages: 300)
        context.insert(again)
        try context.save()
        let other = ModelContext(context.container)
        let books = try other.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "1" }))
        #expect(books.map(\.title) == ["One, revised"])
        #expect(books.map(\.pages) == [300])
    }

    @Test func withTheErrorMergePolicyAUniqueValueInsertedAgainIsAnErrorThatWritesNothing() throws {
        let (context, url) = try library()
        context.managedObjectContext.mergePolicy = NSMergePolicy.error
        let before = bytes(url)
        context.insert(Book(isbn: "2", title: "Two again"))
        #expect(throws: (any Error).self) { try context.save() }
        #expect(bytes(url) == before)
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "2" })).map(\.title) == ["Two"])
    }

    @Test func aTypeTheSchemaCannotStoreIsRefusedNamingTheProperty() {
        #expect {
            try ModelContainer(for: Tour.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } throws: { error in
            "\(error)".contains("Tour.route") && "\(error)".contains("stops")
                && (error as? SwiftDataError) == SwiftDataError.loadIssueModelContainer
        }
    }

    @Test func aModelTypeNotInTheSchemaIsRefusedByAFetchNamingIt() throws {
        let context = ModelContext(try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        #expect {
            try context.fetch(FetchDescriptor<Trip>())
        } throws: { error in
            "\(error)".contains("Trip") && (error as? SwiftDataError) == SwiftDataError.unknownSchema
        }
    }
}

import Foundation
import OpenCoreData
import Testing

/// The examples of Fetching.md, on the three sample books.
@Suite("Documentation: Fetching")
struct FetchingExamples {
    let folder = ExampleFolder()
    let context: NSManagedObjectContext

    init() throws {
        context = try libraryContainer(at: folder.storeURL).viewContext
        try addSampleBooks(to: context)
    }

    @Test func aRequestWithAPredicateAndSorts() throws {
        defer { folder.remove() }
        // doc: fetching-request
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.predicate = NSPredicate(format: "pages > %d AND author.name BEGINSWITH[c] %@", 200, "ursula")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        request.fetchLimit = 10
        let books = try context.fetch(request)
        // end-doc
        #expect(books.map(\.title) == ["The Dispossessed"])
        // doc: fetching-count
        let bookCount = try context.count(for: Book.fetchRequest())
        // end-doc
        #expect(bookCount == 3)
    }

    @Test func acrossToManyRelationships() throws {
        defer { folder.remove() }
        // doc: fetching-to-many
        let prolific = NSFetchRequest<Author>(entityName: "Author")
        prolific.predicate = NSPredicate(format: "books.@count >= 2")
        let fantasyAuthors = NSFetchRequest<Author>(entityName: "Author")
        fantasyAuthors.predicate = NSPredicate(format: "ANY books.genre == %@", "Fantasy")
        let longBooks = NSFetchRequest<Author>(entityName: "Author")
        longBooks.predicate = NSPredicate(format: "SUBQUERY(books, $b, $b.pages > 400).@count > 0")
        // end-doc
        #expect(try context.fetch(prolific).map(\.name) == ["Ursula K. Le Guin"])
        #expect(try context.fetch(fantasyAuthors).map(\.name) == ["Ursula K. Le Guin"])
        #expect(try context.fetch(longBooks).map(\.name) == ["Frank Herbert"])
    }

    @Test func dictionariesGroupedInSQL() throws {
        defer { folder.remove() }
        // doc: fetching-dictionaries
        let totalPages = NSExpressionDescription()
        totalPages.name = "totalPages"
        totalPages.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "pages")])
        totalPages.resultType = .integer64

        let request = NSFetchRequest<NSDictionary>(entityName: "Book")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["genre", totalPages]
        request.propertiesToGroupBy = ["genre"]
        request.sortDescriptors = [NSSortDescriptor(key: "genre", ascending: true)]
        let totals = try context.fetch(request)
        // [{genre: "Fantasy", totalPages: 183}, {genre: "Science fiction", totalPages: 799}]
        // end-doc
        #expect(totals.map { $0["genre"] as? String } == ["Fantasy", "Science fiction"])
        #expect(totals.map { ($0["totalPages"] as? NSNumber)?.intValue } == [183, 799])
    }

    @Test func unsavedChangesCount() throws {
        defer { folder.remove() }
        // doc: fetching-pending
        let draft = Book(context: context)
        draft.title = "Always Coming Home"
        draft.genre = "Fantasy"
        let fantasy: NSFetchRequest<Book> = Book.fetchRequest()
        fantasy.predicate = NSPredicate(format: "genre == %@", "Fantasy")
        let withDraft = try context.fetch(fantasy)          // 2: the unsaved book is judged in memory
        fantasy.includesPendingChanges = false
        let savedOnly = try context.fetch(fantasy)          // 1: the store's answer alone
        // end-doc
        #expect(withDraft.count == 2)
        #expect(savedOnly.map(\.title) == ["A Wizard of Earthsea"])
    }

    @Test func batchesAndFaults() throws {
        defer { folder.remove() }
        // doc: fetching-batches
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
        request.fetchBatchSize = 2              // keys first; each batch of 2 rows is read when touched
        request.relationshipKeyPathsForPrefetching = ["author"]
        let books = try context.fetch(request)
        let longest = books.first?.title        // reads the first batch
        // end-doc
        #expect(longest == "Dune")
        #expect(books.map(\.pages) == [412, 387, 183])
    }
}

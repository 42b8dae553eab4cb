import Foundation
import OpenCoreData
import Testing

// doc: porting-keyvalue-after
extension Book {
    @KeyValue public var titleInitial: String { String((title ?? "?").prefix(1)) }
}
// end-doc

/// The porting article's "after" code (PortingFromCoreData.md), run against the Library store. The
/// "before" code is in CoreDataOriginals.swift.
@Suite("Documentation: Porting an app from Core Data")
struct PortingExamples {
    @Test func keyPathsAreStrings() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let context = try libraryContainer(at: folder.storeURL).viewContext
        try addSampleBooks(to: context)
        // doc: porting-keypath-after
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.predicate = NSPredicate(format: "%K == %@", "genre", "Fantasy")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let fantasy = try context.fetch(request)
        let titles = fantasy.map(\.title)       // a Swift key path, where Swift reads the value
        // end-doc
        #expect(titles == ["A Wizard of Earthsea"])
        // doc: porting-keypath-misspelt
        let misspelt: NSFetchRequest<Book> = Book.fetchRequest()
        misspelt.sortDescriptors = [NSSortDescriptor(key: "titel", ascending: true)]
        #expect(throws: NSError.self) { try context.fetch(misspelt) }
        // keypath titel not found in entity Book (sort descriptor)
        // end-doc
        #expect { try context.fetch(misspelt) } throws: {
            "\($0)".contains("keypath titel not found in entity Book (sort descriptor)")
        }
    }

    @Test func aKeyValuePropertySectionsAController() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let context = try libraryContainer(at: folder.storeURL).viewContext
        try addSampleBooks(to: context)
        // doc: porting-keyvalue-controller
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "titleInitial", cacheName: nil)
        try controller.performFetch()
        let initials = controller.sections?.map(\.name)   // ["A", "D", "T"]
        // end-doc
        #expect(initials == ["A", "D", "T"])
    }

    @Test func requestsAreMadeWithTheirResultType() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let context = try libraryContainer(at: folder.storeURL).viewContext
        try addSampleBooks(to: context)
        // Swift's generics are not erased: the cast Core Data code makes fails here.
        #expect((Book.fetchRequest() as NSFetchRequest<Book> as Any) as? NSFetchRequest<NSDictionary> == nil)
        // doc: porting-cast-after
        let request = NSFetchRequest<NSDictionary>(entityName: "Book")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title", "pages"]
        let rows = try context.fetch(request)

        let identifiers = NSFetchRequest<NSManagedObjectID>(entityName: "Book")
        identifiers.resultType = .managedObjectIDResultType
        let bookIDs = try context.fetch(identifiers)
        // end-doc
        let fetchedTitles = Set(rows.compactMap { $0["title"] as? String })
        let pages: [Int] = rows.compactMap { ($0["pages"] as? NSNumber)?.intValue }
        let entities = Set(bookIDs.map(\.entity.name))
        #expect(fetchedTitles == ["The Dispossessed", "A Wizard of Earthsea", "Dune"])
        #expect(pages.sorted() == [183, 387, 412])
        #expect(bookIDs.count == 3)
        #expect(entities == ["Book"])
    }

    @Test func notificationObserversAreBlocks() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let container = try libraryContainer(at: folder.storeURL)
        let viewContext = container.viewContext
        let background = container.newBackgroundContext()
        // doc: porting-selector-after
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: background, queue: nil
        ) { notification in
            viewContext.performAndWait { viewContext.mergeChanges(fromContextDidSave: notification) }
        }
        // … and when it is no longer needed:
        // NotificationCenter.default.removeObserver(observer)
        // end-doc
        defer { NotificationCenter.default.removeObserver(observer) }
        let bookID = try background.performAndWait {
            let book = Book(context: background)
            book.title = "The Lathe of Heaven"
            try background.save()
            return book.objectID
        }
        let merged = viewContext.performAndWait { (viewContext.registeredObject(for: bookID) as? Book)?.title }
        #expect(merged == "The Lathe of Heaven")
    }

    @Test func changesAreObservedThroughTheContext() async throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let container = try libraryContainer(at: folder.storeURL)
        let context = container.newBackgroundContext()
        let shown = Shown()
        try context.performAndWait {
            try addSampleBooks(to: context)
            let book = try #require(try context.fetch(Book.fetchRequest()).first { $0.title == "Dune" })
            // doc: porting-kvo-object-after
            let bookID = book.objectID
            let observer = NotificationCenter.default.addObserver(
                forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil
            ) { notification in
                let updated = notification.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> ?? []
                if let book = updated.first(where: { $0.objectID == bookID }) as? Book {
                    shown.append("retitled: \(book.title ?? "")")
                }
            }
            book.title = "Dune Messiah"
            context.processPendingChanges()     // ObjectsDidChange is posted here (and before a save)
            // end-doc
            NotificationCenter.default.removeObserver(observer)
        }
        #expect(shown.lines == ["retitled: Dune Messiah"])
        startFetch(in: context, shown: shown)
        #expect(try await shown.waitFor(2).last == "fetched 3 books")
    }

    /// The asynchronous fetch, started from synchronous code as an app does.
    func startFetch(in context: NSManagedObjectContext, shown: Shown) {
        // doc: porting-kvo-progress-after
        context.perform {
            let fetch = NSFetchRequest<Book>(entityName: "Book")
            let asynchronousFetch = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
                // On the context's queue, once the objects are made: the progress is final here.
                let done = result.progress?.completedUnitCount ?? 0
                shown.append("fetched \(done) books")
            }
            _ = try? context.execute(asynchronousFetch)
        }
        // end-doc
    }
}

import Foundation
import OpenCoreData
import Testing

/// The examples of TheStore.md.
@Suite("Documentation: The store")
struct StoreExamples {
    @Test func openingAStoreFile() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let storeURL = folder.storeURL
        // doc: store-open
        let container = NSPersistentContainer(name: "Library")
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        container.loadPersistentStores { description, error in
            if let error { fatalError("could not open \(description.url!.path): \(error)") }
        }
        let context = container.viewContext
        // end-doc
        try addSampleBooks(to: context)
        #expect(FileManager.default.fileExists(atPath: storeURL.path))
        #expect(try context.count(for: Book.fetchRequest()) == 3)
    }

    @Test func aReadOnlyStoreRefusesASave() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let storeURL = folder.storeURL
        try addSampleBooks(to: libraryContainer(at: storeURL).viewContext)
        var messages: [String] = []
        // doc: store-options
        let description = NSPersistentStoreDescription(url: storeURL)
        description.isReadOnly = true                       // NSReadOnlyPersistentStoreOption
        description.timeout = 5                             // SQLite's busy timeout, in seconds
        description.setValue("-4000" as NSString, forPragmaNamed: "cache_size")
        let reader = NSPersistentContainer(name: "Library")
        reader.persistentStoreDescriptions = [description]
        reader.loadPersistentStores { _, error in precondition(error == nil, "\(error!)") }

        let context = reader.viewContext
        let book = Book(context: context)
        book.title = "Unsaveable"
        do {
            try context.save()
        } catch let error as NSError where error.code == NSPersistentStoreSaveError {
            messages.append(error.localizedDescription)     // nothing written; the context keeps its changes
        }
        // end-doc
        #expect(messages.count == 1)
        #expect(context.hasChanges)
        #expect(try context.count(for: Book.fetchRequest()) == 4)     // the three saved and the unsaved one
    }

    @Test func anInMemoryStoreAndDestroyingAFile() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let storeURL = folder.storeURL
        // doc: store-in-memory
        let scratch = NSPersistentStoreDescription()
        scratch.type = NSInMemoryStoreType                  // the same SQL, without a file
        let container = NSPersistentContainer(name: "Library")
        container.persistentStoreDescriptions = [scratch]
        container.loadPersistentStores { _, error in precondition(error == nil, "\(error!)") }
        // end-doc
        try addSampleBooks(to: container.viewContext)
        #expect(try container.viewContext.count(for: Book.fetchRequest()) == 3)

        let onDisk = try libraryContainer(at: storeURL)
        try addSampleBooks(to: onDisk.viewContext)
        // doc: store-destroy
        let coordinator = onDisk.persistentStoreCoordinator
        try coordinator.destroyPersistentStore(at: storeURL, type: .sqlite)   // the file, -wal and -shm
        // end-doc
        #expect(!FileManager.default.fileExists(atPath: storeURL.path))
        #expect(!FileManager.default.fileExists(atPath: storeURL.path + "-wal"))
    }

    @Test func errorsAreNSErrorsWithCoreDatasCodes() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let context = try libraryContainer(at: folder.storeURL).viewContext
        try addSampleBooks(to: context)
        // doc: store-errors
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.predicate = NSPredicate(format: "title MATCHES %@", "b)|(c")
        do {
            _ = try context.fetch(request)
        } catch let error as NSError {
            // error.domain == NSCocoaErrorDomain, error.code == NSSQLiteError (134180):
            // "invalid regular expression for MATCHES: b)|(c"
            print(error.code, error.localizedDescription)
        }
        // end-doc
        #expect { try context.fetch(request) } throws: {
            let error = $0 as NSError
            return error.domain == NSCocoaErrorDomain && error.code == NSSQLiteError
                && "\(error)".contains("invalid regular expression for MATCHES: b)|(c")
        }
    }
}

import Foundation
import OpenCoreData
import Testing

/// The examples of ContextsAndConcurrency.md.
@Suite("Documentation: Contexts and concurrency")
struct ContextExamples {
    @Test func objectIDsCrossQueues() async throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let container = try libraryContainer(at: folder.storeURL)
        // doc: contexts-background
        let background = container.newBackgroundContext()
        let bookID = try await background.perform {
            let book = Book(context: background)
            book.title = "The Left Hand of Darkness"
            try background.save()
            return book.objectID            // IDs cross queues; objects stay on their context's
        }
        let viewContext = container.viewContext
        let title = try viewContext.performAndWait {
            (try viewContext.existingObject(with: bookID) as? Book)?.title
        }
        // end-doc
        #expect(title == "The Left Hand of Darkness")
    }

    @Test func theViewContextMergesBackgroundSaves() async throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let container = try libraryContainer(at: folder.storeURL)
        let viewContext = container.viewContext
        let book = try viewContext.performAndWait {
            let book = Book(context: viewContext)
            book.title = "Parable of the Sower"
            try viewContext.save()
            return book
        }
        // doc: contexts-automatic-merge
        viewContext.automaticallyMergesChangesFromParent = true
        let bookID = book.objectID
        try await container.performBackgroundTask { context in
            let same = try context.existingObject(with: bookID) as! Book
            same.title = "Parable of the Talents"
            try context.save()              // merged into viewContext, on its queue
        }
        // end-doc
        let merged = viewContext.performAndWait { book.title }
        #expect(merged == "Parable of the Talents")
    }

    @Test func aMergePolicySettlesAConflict() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let container = try libraryContainer(at: folder.storeURL)
        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        let bookID = try first.performAndWait {
            let book = Book(context: first)
            book.title = "Dune"
            book.pages = 412
            try first.save()
            return book.objectID
        }
        _ = try second.performAndWait { (try second.existingObject(with: bookID) as! Book).title }
        try first.performAndWait {
            (try first.existingObject(with: bookID) as! Book).genre = "Science fiction"
            try first.save()
        }
        // doc: contexts-merge-policy
        second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try second.performAndWait {
            let book = try second.existingObject(with: bookID) as! Book
            book.pages = 896                // the row changed since `second` read it
            try second.save()               // the policy keeps both changes
        }
        // end-doc
        let saved = try first.performAndWait {
            let book = try first.existingObject(with: bookID) as! Book
            first.refresh(book, mergeChanges: false)
            return (book.genre, book.pages)
        }
        #expect(saved.0 == "Science fiction")
        #expect(saved.1 == 896)
    }

    @Test func theErrorPolicyRefusesAConflict() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let container = try libraryContainer(at: folder.storeURL)
        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        let bookID = try first.performAndWait {
            let book = Book(context: first)
            book.title = "Dune"
            try first.save()
            return book.objectID
        }
        _ = try second.performAndWait { (try second.existingObject(with: bookID) as! Book).title }
        try first.performAndWait {
            (try first.existingObject(with: bookID) as! Book).pages = 412
            try first.save()
        }
        // doc: contexts-error-policy
        do {
            try second.performAndWait {
                (try second.existingObject(with: bookID) as! Book).pages = 896
                try second.save()           // NSErrorMergePolicy, the default
            }
        } catch let error as NSError where error.code == NSManagedObjectMergeError {
            let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
            print("\(conflicts?.count ?? 0) conflict(s); nothing was written")
        }
        // end-doc
        let pages = try first.performAndWait {
            let book = try first.existingObject(with: bookID) as! Book
            first.refresh(book, mergeChanges: false)
            return book.pages
        }
        #expect(pages == 412)
        #expect(second.performAndWait { second.hasChanges })
    }

    @Test func aChildContextSavesIntoItsParent() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let container = try libraryContainer(at: folder.storeURL)
        let viewContext = container.viewContext
        // doc: contexts-child
        let editor = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        editor.parent = viewContext
        try editor.performAndWait {
            let book = Book(context: editor)
            book.title = "Lilith's Brood"
            try editor.save()               // into viewContext: the store has not seen it yet
        }
        let pending = viewContext.performAndWait { viewContext.insertedObjects.count }   // 1
        try viewContext.performAndWait { try viewContext.save() }                      // now the store
        // end-doc
        #expect(pending == 1)
        #expect(try savedAuthorNames(at: folder.storeURL).count == 1)
    }
}

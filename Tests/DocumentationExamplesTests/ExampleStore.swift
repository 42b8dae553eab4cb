import Foundation
import OpenCoreData

// The setup the articles' examples share: the Library model (Library.xcdatamodeld, a resource of this
// target, found by NSPersistentContainer(name:)), on a new SQLite file in a temporary folder per example.

/// A temporary folder holding one example's store file; `remove()` deletes it.
struct ExampleFolder {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-docs-\(UUID().uuidString)")
    var storeURL: URL { url.appendingPathComponent("Library.sqlite") }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The Library container on `storeURL`, its store loaded; throws the load's error.
func libraryContainer(at storeURL: URL) throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Library")
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
    var loadError: (any Error)?
    container.loadPersistentStores { _, error in loadError = error }
    if let loadError { throw loadError }
    return container
}

/// Three books by two authors, saved: the data most examples fetch.
func addSampleBooks(to context: NSManagedObjectContext) throws {
    let le = Author(context: context)
    le.name = "Ursula K. Le Guin"
    let herbert = Author(context: context)
    herbert.name = "Frank Herbert"
    for (title, genre, pages, author) in [("The Dispossessed", "Science fiction", 387, le),
                                           ("A Wizard of Earthsea", "Fantasy", 183, le),
                                           ("Dune", "Science fiction", 412, herbert)] {
        let book = Book(context: context)
        book.title = title
        book.genre = genre
        book.pages = Int32(pages)
        book.author = author
    }
    try context.save()
}

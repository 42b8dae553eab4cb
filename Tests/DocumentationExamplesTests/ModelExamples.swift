import Foundation
import OpenCoreData
import Testing

/// The examples of ModelFilesAndClasses.md.
@Suite("Documentation: Model files and classes")
struct ModelExamples {
    @Test func theModelFileIsFoundInTheTargetsBundle() throws {
        // doc: model-merged
        let model = NSManagedObjectModel.mergedModel(from: [Bundle.module])!
        let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
        let book = model.entitiesByName["Book"]!
        let bookClass: AnyClass? = NSClassFromString(book.managedObjectClassName)   // Book.self
        // end-doc
        #expect(container.managedObjectModel === model)
        #expect(book.managedObjectClassName == "Book")
        #expect(bookClass == Book.self)
        #expect(model.entities.map(\.name) == ["Author", "Book"])
    }

    @Test func relationshipsKeepTheirInversesAtOnce() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let context = try libraryContainer(at: folder.storeURL).viewContext
        // doc: model-relationships
        let author = Author(context: context)
        author.name = "Octavia E. Butler"
        let book = Book(context: context)
        book.title = "Kindred"
        book.pages = 264
        author.addToBooks(book)             // book.author is `author` now, before any save
        try context.save()
        // end-doc
        #expect(book.author === author)
        #expect((author.books as? Set<Book>) == [book])
        #expect(try savedAuthorNames(at: folder.storeURL) == ["Octavia E. Butler"])
    }

    @Test func aModelBuiltInCode() throws {
        let folder = ExampleFolder()
        defer { folder.remove() }
        let storeURL = folder.storeURL
        // doc: model-in-code
        let note = NSEntityDescription()
        note.name = "Note"
        note.managedObjectClassName = "NSManagedObject"
        let text = NSAttributeDescription()
        text.name = "text"
        text.attributeType = .stringAttributeType
        text.isOptional = false
        note.properties = [text]
        let model = NSManagedObjectModel()
        model.entities = [note]

        let container = NSPersistentContainer(name: "Notes", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        container.loadPersistentStores { _, error in precondition(error == nil, "\(error!)") }
        let context = container.viewContext
        let first = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        first.setValue("Buy milk", forKey: "text")
        try context.save()
        // end-doc
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 1)
        // doc: model-write
        try model.write(to: folder.url.appendingPathComponent("Notes.xcdatamodeld"))
        let reread = NSManagedObjectModel(contentsOf: folder.url.appendingPathComponent("Notes.xcdatamodeld"))
        // end-doc
        #expect(reread == model)
        #expect(reread?.entitiesByName["Note"]?.attributesByName["text"]?.isOptional == false)
    }
}

/// The author of each book the store holds, read through a container of its own.
func savedAuthorNames(at storeURL: URL) throws -> [String?] {
    let context = try libraryContainer(at: storeURL).newBackgroundContext()
    return try context.performAndWait {
        try context.fetch(Book.fetchRequest()).map { $0.author?.name }
    }
}

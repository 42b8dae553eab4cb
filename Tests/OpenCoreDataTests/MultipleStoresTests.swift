import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Several stores behind one coordinator, each holding the entities of its configuration (issue #33,
/// item 4): Apple's "Linking Data Between Two Core Data Stores" layout, a library of books in one file and
/// the user's notes in another.
@Suite struct MultipleStoresTests {
    /// Author ↔ Book in configuration "Library"; Note (with a to-one to Book that may never be set across
    /// stores) in "User".
    static func model() -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "books", destination: "Book", inverse: "author", toMany: true),
        ])
        let book = NSEntityDescription(name: "Book", properties: [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
            NSRelationshipDescription(name: "author", destination: "Author", inverse: "books"),
        ])
        let note = NSEntityDescription(name: "Note", properties: [
            NSAttributeDescription(name: "text", type: .stringAttributeType),
            NSRelationshipDescription(name: "book", destination: "Book", inverse: nil),
        ])
        note.uniquenessConstraints = [["text"]]
        let model = NSManagedObjectModel(entities: [author, book, note])
        model.setEntities([author, book], forConfigurationName: "Library")
        model.setEntities([note], forConfigurationName: "User")
        return model
    }

    struct Stack {
        let directory = TemporaryStore()
        let coordinator: NSPersistentStoreCoordinator
        let library: NSPersistentStore
        let user: NSPersistentStore
        var libraryURL: URL { directory.directory.appendingPathComponent("Library.sqlite") }
        var userURL: URL { directory.directory.appendingPathComponent("User.sqlite") }

        init(model: NSManagedObjectModel = MultipleStoresTests.model()) throws {
            coordinator = try NSPersistentStoreCoordinator(validatingModel: model)
            let dir = directory.directory
            library = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Library",
                                                         at: dir.appendingPathComponent("Library.sqlite"))
            user = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "User",
                                                      at: dir.appendingPathComponent("User.sqlite"))
        }

        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        func strings(_ url: URL, _ sql: String) throws -> [String] {
            var values: [String] = []
            try SQLiteConnection(path: url.path).query(sql) { if case .string(let s) = $0.value(0, as: .stringAttributeType) { values.append(s) } }
            return values
        }

        func int(_ url: URL, _ sql: String) throws -> Int64 {
            var value: Int64 = 0
            try SQLiteConnection(path: url.path).query(sql) { value = $0.int64(0) }
            return value
        }
    }

    func insert(_ context: NSManagedObjectContext, _ entity: String, _ values: [String: Any]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    @Test func eachStoreFileHasTheTablesOfItsConfigurationOnly() throws {
        let stack = try Stack()
        defer { stack.directory.cleanUp() }
        let tables = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        #expect(try stack.strings(stack.libraryURL, tables) == ["ZAUTHOR", "ZBOOK", "Z_METADATA", "Z_PRIMARYKEY"])
        #expect(try stack.strings(stack.userURL, tables) == ["ZNOTE", "Z_METADATA", "Z_PRIMARYKEY"])
        #expect(stack.library.configurationName == "Library" && stack.user.configurationName == "User")
        #expect(stack.coordinator.persistentStores.count == 2)
        #expect(stack.library.identifier != stack.user.identifier)
        // Each file's metadata is compatible with its own configuration of the model.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: stack.userURL)
        #expect(stack.coordinator.managedObjectModel.isConfiguration(withName: "User", compatibleWithStoreMetadata: metadata))
    }

    @Test func savesFetchesAndObjectIDsGoToTheStoreOfTheirEntity() throws {
        let stack = try Stack()
        defer { stack.directory.cleanUp() }
        let context = stack.context()
        let author = insert(context, "Author", ["name": "Le Guin"])
        let book = insert(context, "Book", ["title": "The Dispossessed", "author": author])
        let note = insert(context, "Note", ["text": "reread"])
        try context.save()
        #expect(book.objectID.persistentStore === stack.library)
        #expect(note.objectID.persistentStore === stack.user)
        #expect(note.objectID.uriRepresentation().host == stack.user.identifier)
        #expect(try stack.int(stack.libraryURL, "SELECT count(*) FROM ZBOOK") == 1)
        #expect(try stack.int(stack.userURL, "SELECT count(*) FROM ZNOTE") == 1)
        #expect(try stack.int(stack.userURL, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'") == 1)
        #expect(try stack.int(stack.libraryURL, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") == 1)

        let other = stack.context()
        let notes = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
        #expect(notes.map { $0.value(forKey: "text") as? String } == ["reread"])
        let books = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
        #expect((books.first?.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String == "Le Guin")
        #expect(try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 1)
        for object in [book, note] {
            let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: object.objectID.uriRepresentation()))
            #expect(id == object.objectID)
        }
        // A URI naming the other store's UUID is not an object of that store.
        var wrong = URLComponents(url: note.objectID.uriRepresentation(), resolvingAgainstBaseURL: false)!
        wrong.host = stack.library.identifier
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: wrong.url!) == nil)

        // Updates and deletes reach the right file too.
        notes[0].setValue("read twice", forKey: "text")
        other.delete(books[0])
        try other.save()
        #expect(try stack.strings(stack.userURL, "SELECT ZTEXT FROM ZNOTE") == ["read twice"])
        #expect(try stack.int(stack.libraryURL, "SELECT count(*) FROM ZBOOK") == 0)
    }

    @Test func affectedStoresLimitAFetchToTheStoresNamed() throws {
        let stack = try Stack()
        defer { stack.directory.cleanUp() }
        let context = stack.context()
        _ = insert(context, "Note", ["text": "a"])
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.affectedStores = [stack.library]
        #expect(try context.fetch(request).isEmpty)
        #expect(try context.count(for: request) == 0)
        request.affectedStores = [stack.user]
        #expect(try context.fetch(request).count == 1)
    }

    @Test func aRelationshipBetweenStoresIsRefusedAndNothingIsWritten() throws {
        let stack = try Stack()
        defer { stack.directory.cleanUp() }
        let context = stack.context()
        let book = insert(context, "Book", ["title": "Earthsea"])
        let note = insert(context, "Note", ["text": "x", "book": book])
        #expect { try context.save() } throws: { error in
            let e = error as NSError
            return e.code == NSPersistentStoreSaveError && e.localizedDescription.contains("'book'") && e.localizedDescription.contains("different stores")
        }
        #expect(try stack.int(stack.libraryURL, "SELECT count(*) FROM ZBOOK") == 0)
        #expect(try stack.int(stack.userURL, "SELECT count(*) FROM ZNOTE") == 0)
        #expect(context.insertedObjects.count == 2 && note.objectID.isTemporaryID)
        // Without the link the same objects save.
        note.setValue(nil, forKey: "book")
        try context.save()
        #expect(try stack.int(stack.libraryURL, "SELECT count(*) FROM ZBOOK") == 1)
    }

    @Test func aSaveThatFailsInOneStoreWritesNothingInTheOther() throws {
        let stack = try Stack()
        defer { stack.directory.cleanUp() }
        let context = stack.context()
        _ = insert(context, "Note", ["text": "taken"])
        try context.save()
        // Another context saves a note with the same text (a uniqueness conflict found inside the user
        // store's transaction) beside a new book and author for the library store.
        let other = stack.context()
        _ = insert(other, "Book", ["title": "Lavinia", "author": insert(other, "Author", ["name": "Le Guin"])])
        _ = insert(other, "Note", ["text": "taken"])
        let libraryBefore = try stack.int(stack.libraryURL, "SELECT sum(Z_MAX) FROM Z_PRIMARYKEY")
        #expect(throws: (any Error).self) { try other.save() }
        #expect(try stack.int(stack.libraryURL, "SELECT count(*) FROM ZBOOK") == 0)
        #expect(try stack.int(stack.libraryURL, "SELECT count(*) FROM ZAUTHOR") == 0)
        #expect(try stack.int(stack.libraryURL, "SELECT sum(Z_MAX) FROM Z_PRIMARYKEY") == libraryBefore)
        #expect(try stack.int(stack.userURL, "SELECT count(*) FROM ZNOTE") == 1)
        #expect(other.insertedObjects.count == 3 && other.hasChanges)
        #expect(try stack.strings(stack.libraryURL, "PRAGMA integrity_check") == ["ok"])
    }

    @Test func configurationsAreCheckedBeforeAnyFileIsMade() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: Self.model())
        let first = directory.directory.appendingPathComponent("All.sqlite")
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: first)
        // An unknown configuration is refused before a file is made. (A second store sharing Note with
        // the first is accepted, as Core Data accepts overlapping configurations: OverlappingStoresTests.)
        let second = directory.directory.appendingPathComponent("User.sqlite")
        #expect { try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Nope", at: second) } throws: { error in
            (error as NSError).localizedDescription.contains("Nope") && (error as NSError).localizedDescription.contains("Library, User")
        }
        #expect(!FileManager.default.fileExists(atPath: second.path))
        #expect(coordinator.persistentStores.count == 1)
    }

    @Test func anEntityNoStoreHoldsFetchesNothingAndCannotBeSaved() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: Self.model())
        let url = directory.directory.appendingPathComponent("User.sqlite")
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "User", at: url)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).isEmpty)
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 0)
        _ = insert(context, "Book", ["title": "nowhere"])
        #expect { try context.save() } throws: { error in (error as NSError).localizedDescription.contains("entity Book") }
        #expect(context.hasChanges)
    }

    @Test func storesReopenWithTheirConfigurationsAndRemoveOneAtATime() throws {
        let stack = try Stack()
        defer { stack.directory.cleanUp() }
        let context = stack.context()
        _ = insert(context, "Note", ["text": "kept"])
        _ = insert(context, "Book", ["title": "kept"])
        try context.save()
        try stack.coordinator.remove(stack.user)
        #expect(try stack.context().fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).isEmpty)
        #expect(try stack.context().fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).count == 1)

        let again = try NSPersistentStoreCoordinator(validatingModel: Self.model())
        for (name, url) in [("User", stack.userURL), ("Library", stack.libraryURL)] {
            try again.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: name, at: url)
        }
        let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        reader.persistentStoreCoordinator = again
        #expect(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).count == 1)
        #expect(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).count == 1)
        // The user store opened as the library is refused: its file lacks the library's tables.
        let wrong = try NSPersistentStoreCoordinator(validatingModel: Self.model())
        #expect(throws: (any Error).self) {
            try wrong.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Library", at: stack.userURL)
        }
    }

    @Test func aContainerLoadsOneStorePerDescription() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let container = NSPersistentContainer(name: "Books", managedObjectModel: Self.model())
        let library = NSPersistentStoreDescription(url: directory.directory.appendingPathComponent("Library.sqlite"))
        library.configuration = "Library"
        let user = NSPersistentStoreDescription(url: directory.directory.appendingPathComponent("User.sqlite"))
        user.configuration = "User"
        container.persistentStoreDescriptions = [library, user]
        var errors: [Error] = []
        container.loadPersistentStores { _, error in if let error { errors.append(error) } }
        #expect(errors.isEmpty)
        #expect(container.persistentStoreCoordinator.persistentStores.map(\.configurationName) == ["Library", "User"])
        let context = container.viewContext
        _ = insert(context, "Note", ["text": "n"])
        _ = insert(context, "Author", ["name": "a"])
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        #expect(try context.fetch(request).first?.objectID.persistentStore?.configurationName == "User")
    }

    @Test func assignAcceptsTheStoreThatHoldsTheEntity() throws {
        let stack = try Stack()
        defer { stack.directory.cleanUp() }
        let context = stack.context()
        let note = insert(context, "Note", ["text": "assigned"])
        context.assign(note, to: stack.user)
        try context.save()
        #expect(note.objectID.persistentStore === stack.user)
    }
}

import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Every property `NSManagedObject` declares is reachable by key, as Apple's key-value coding reaches it
/// ("NSManagedObject … is key-value coding compliant"): `entity`, `objectID`, `managedObjectContext`,
/// `isInserted`, `isUpdated`, `isDeleted`, `isFault`, `hasChanges`, `hasPersistentChangedValues`,
/// `faultingState`; so are `NSManagedObjectID`'s `entity`, `isTemporaryID`, `persistentStore`,
/// `uriRepresentation`, and `NSEntityDescription`'s `name` and `managedObjectClassName`.
@Suite struct OwnKeysByKeyTests {
    /// Item (title, shelf) with subentities Book and Film, all in one table; Shelf (name, items).
    static func model() -> NSManagedObjectModel {
        let book = NSEntityDescription(name: "Book", properties: [NSAttributeDescription(name: "pages", type: .integer32AttributeType)])
        let film = NSEntityDescription(name: "Film", properties: [])
        let item = NSEntityDescription(name: "Item", properties: [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
            NSRelationshipDescription(name: "shelf", destination: "Shelf", inverse: "items"),
        ], subentities: [book, film])
        let shelf = NSEntityDescription(name: "Shelf", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "items", destination: "Item", inverse: "shelf", toMany: true),
        ])
        return NSManagedObjectModel(entities: [item, book, film, shelf])
    }

    static func insert(_ entity: String, _ title: String, _ context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        object.setValue(title, forKey: "title")
        return object
    }

    /// The Boolean properties by every key that names them (the property and its Objective-C getter).
    static let flags: [(keys: [String], read: @Sendable (NSManagedObject) -> Bool)] = [
        (["isInserted", "inserted"], { $0.isInserted }),
        (["isUpdated", "updated"], { $0.isUpdated }),
        (["isDeleted", "deleted"], { $0.isDeleted }),
        (["isFault", "fault"], { $0.isFault }),
        (["hasChanges"], { $0.hasChanges }),
        (["hasPersistentChangedValues"], { $0.hasPersistentChangedValues }),
    ]

    /// Each flag read by key equals the property, and the expected value in this state.
    static func expectFlags(_ object: NSManagedObject, _ expected: [String: Bool], _ state: String) {
        for (keys, read) in flags {
            for key in keys {
                let byKey = object.value(forKey: key) as? Bool
                #expect(byKey == read(object), "\(state): \(key)")
                #expect(byKey == expected[keys[0]], "\(state): \(key) is \(String(describing: byKey))")
            }
        }
        #expect((object.value(forKey: "faultingState") as? Int) == object.faultingState, "\(state): faultingState")
    }

    @Test func everyPropertyByKeyThroughTheLifecycle() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        let book = Self.insert("Book", "Anna Karenina", context)
        #expect(book.value(forKey: "entity") as? NSEntityDescription === book.entity)
        #expect(book.value(forKey: "objectID") as? NSManagedObjectID == book.objectID)
        #expect(book.value(forKey: "managedObjectContext") as? NSManagedObjectContext === context)
        #expect(book.value(forKey: "self") as? NSManagedObject === book)
        #expect(try book.validatedValue(forKey: "entity") as? NSEntityDescription === book.entity)
        Self.expectFlags(book, ["isInserted": true, "isUpdated": false, "isDeleted": false, "isFault": false,
                                "hasChanges": true, "hasPersistentChangedValues": true], "inserted")
        try context.save()
        Self.expectFlags(book, ["isInserted": false, "isUpdated": false, "isDeleted": false, "isFault": false,
                                "hasChanges": false, "hasPersistentChangedValues": false], "saved")
        #expect((book.value(forKey: "faultingState") as? Int) == 0)
        book.setValue("War and Peace", forKey: "title")
        Self.expectFlags(book, ["isInserted": false, "isUpdated": true, "isDeleted": false, "isFault": false,
                                "hasChanges": true, "hasPersistentChangedValues": true], "updated")
        try context.save()
        context.refresh(book, mergeChanges: false)
        Self.expectFlags(book, ["isInserted": false, "isUpdated": false, "isDeleted": false, "isFault": true,
                                "hasChanges": false, "hasPersistentChangedValues": false], "fault")
        #expect(book.isFault, "reading the flags by key fires no fault")
        #expect((book.value(forKey: "faultingState") as? Int) == book.faultingState)
        context.delete(book)
        Self.expectFlags(book, ["isInserted": false, "isUpdated": book.isUpdated, "isDeleted": true, "isFault": book.isFault,
                                "hasChanges": true, "hasPersistentChangedValues": book.hasPersistentChangedValues], "deleted")
        #expect(book.value(forKey: "managedObjectContext") as? NSManagedObjectContext === context)
    }

    @Test func anUnknownKeyStillThrowsNamingIt() throws {
        let context = try TemporaryStore().container(Self.model()).viewContext
        let book = Self.insert("Book", "x", context)
        #expect { try book.validatedValue(forKey: "isDeletedd") } throws: { "\($0)".contains("isDeletedd") }
        #expect { try book.objectID.validatedValue(forKey: "name") } throws: { "\($0)".contains("NSManagedObjectID") }
        #expect { try book.entity.validatedValue(forKey: "title") } throws: { "\($0)".contains("NSEntityDescription") }
    }

    @Test func objectIDAndEntityPropertiesByKeyAndKeyPath() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        let film = Self.insert("Film", "Solaris", context)
        let id = film.objectID
        #expect(id.value(forKey: "entity") as? NSEntityDescription === film.entity)
        #expect(id.value(forKey: "isTemporaryID") as? Bool == true)
        #expect(id.value(forKey: "temporaryID") as? Bool == true)
        #expect(id.value(forKey: "persistentStore") == nil)
        #expect(id.value(forKey: "uriRepresentation") as? URL == id.uriRepresentation())
        #expect(id.value(forKey: "URIRepresentation") as? URL == id.uriRepresentation())
        #expect(film.entity.value(forKey: "name") as? String == "Film")
        #expect(film.entity.value(forKey: "managedObjectClassName") as? String == film.entity.managedObjectClassName)
        try context.save()
        let saved = film.objectID
        #expect(saved.value(forKey: "isTemporaryID") as? Bool == false)
        #expect(saved.value(forKey: "persistentStore") as? NSPersistentStore === container.persistentStoreCoordinator.persistentStores.first)
        #expect(saved.value(forKey: "uriRepresentation") as? URL == saved.uriRepresentation())
        // Key paths from the object, through the ID and the entity.
        #expect(film.value(forKeyPath: "entity.name") as? String == "Film")
        #expect(film.value(forKeyPath: "self.entity.name") as? String == "Film")
        #expect(film.value(forKeyPath: "objectID.entity.name") as? String == "Film")
        #expect(film.value(forKeyPath: "objectID.isTemporaryID") as? Bool == false)
        #expect(film.value(forKeyPath: "objectID.uriRepresentation") as? URL == saved.uriRepresentation())
        #expect(film.value(forKeyPath: "entity.managedObjectClassName") as? String == "NSManagedObject")
        #expect(film.value(forKeyPath: "managedObjectContext") as? NSManagedObjectContext === context)
        // Through a relationship.
        let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
        film.setValue(shelf, forKey: "shelf")
        #expect(film.value(forKeyPath: "shelf.entity.name") as? String == "Shelf")
        #expect(film.value(forKeyPath: "shelf.isInserted") as? Bool == true)
        #expect((shelf.value(forKeyPath: "items.entity.name") as? Set<AnyHashable>) == ["Film"])
    }

    @Test func inMemoryPredicatesReadTheObjectsOwnProperties() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let book = Self.insert("Book", "Dune", context), film = Self.insert("Film", "Alien", context)
        try context.save()
        let fresh = Self.insert("Book", "Emma", context)
        let all = [book, film, fresh]
        func matching(_ predicate: NSPredicate) -> [String] {
            all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "title") as? String }
        }
        let bookEntity = book.entity
        #expect(matching(NSPredicate(format: "entity == %@", bookEntity)) == ["Dune", "Emma"])
        #expect(matching(NSPredicate(format: "self.entity == %@", bookEntity)) == ["Dune", "Emma"])
        #expect(matching(NSPredicate(format: "SELF.entity != %@", bookEntity)) == ["Alien"])
        #expect(matching(NSPredicate(format: "self.entity.name == 'Book'")) == ["Dune", "Emma"])
        #expect(matching(NSPredicate(format: "entity.name == %@", "Film")) == ["Alien"])
        #expect(matching(NSPredicate(format: "entity.name IN %@", ["Film", "Shelf"])) == ["Alien"])
        #expect(matching(NSPredicate(format: "isInserted == YES")) == ["Emma"])
        #expect(matching(NSPredicate(format: "inserted == NO AND hasChanges == NO")) == ["Dune", "Alien"])
        #expect(matching(NSPredicate(format: "objectID == %@", film.objectID)) == ["Alien"])
        #expect(matching(NSPredicate(format: "objectID.isTemporaryID == YES")) == ["Emma"])
        #expect(matching(NSPredicate(format: "objectID.entity.name == 'Film'")) == ["Alien"])
        #expect(matching(NSPredicate(format: "managedObjectContext == %@", context)) == ["Dune", "Alien", "Emma"])
        #expect(matching(NSPredicate(format: "faultingState == 0")) == ["Dune", "Alien", "Emma"])
        book.setValue("Dune Messiah", forKey: "title")
        #expect(matching(NSPredicate(format: "isUpdated == YES")) == ["Dune Messiah"])
        #expect(matching(NSPredicate(format: "hasPersistentChangedValues == YES")) == ["Dune Messiah", "Emma"])
        context.delete(film)
        #expect(matching(NSPredicate(format: "isDeleted == YES OR deleted == YES")) == ["Alien"])
        // A fault is tested without being fired.
        context.refresh(book, mergeChanges: false)
        #expect(NSPredicate(format: "isFault == YES AND fault == YES").evaluate(with: book))
        #expect(book.isFault)
    }

    @Test func inMemorySortsReadTheObjectsOwnProperties() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let objects = [Self.insert("Film", "b", context), Self.insert("Book", "c", context), Self.insert("Item", "a", context)]
        let byEntity = objects.sorted(using: [NSSortDescriptor(key: "entity.name", ascending: true)])
        #expect(byEntity.map { $0.entity.name } == ["Book", "Film", "Item"])
        try context.save()
        objects[0].setValue("z", forKey: "title")
        let byUpdated = objects.sorted(using: [NSSortDescriptor(key: "isUpdated", ascending: false),
                                               NSSortDescriptor(key: "self.entity.name", ascending: false)])
        #expect(byUpdated.map { $0.entity.name } == ["Film", "Item", "Book"])
    }
}

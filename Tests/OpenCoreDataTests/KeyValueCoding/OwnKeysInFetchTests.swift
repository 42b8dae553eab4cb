import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A fetch compares `entity` (or `self.entity`) with an entity in SQL, on the `Z_ENT` column, as Core
/// Data translates it; the object's other own properties are refused in a fetch, clearly, as Core Data
/// refuses them (they are read in memory, with `filtered(using:)` or `evaluate(with:)`).
@Suite struct OwnKeysInFetchTests {
    /// Two books, a film and a plain item saved; a third book pending.
    static func seeded(_ store: TemporaryStore) throws -> (NSPersistentContainer, NSManagedObjectContext) {
        let container = try store.container(OwnKeysByKeyTests.model())
        let context = container.viewContext
        for (entity, title) in [("Book", "Dune"), ("Book", "Emma"), ("Film", "Alien"), ("Item", "Lamp")] {
            _ = OwnKeysByKeyTests.insert(entity, title, context)
        }
        try context.save()
        return (container, context)
    }

    static func titles(_ context: NSManagedObjectContext, _ predicate: NSPredicate, entity: String = "Item") throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try context.fetch(request).compactMap { $0.value(forKey: "title") as? String }
    }

    @Test func entityComparisonsAreTranslatedToTheEntityColumn() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, context) = try Self.seeded(store)
        let model = container.managedObjectModel
        let book = try #require(model.entitiesByName["Book"]), film = try #require(model.entitiesByName["Film"])
        let item = try #require(model.entitiesByName["Item"])
        // Read in a context with nothing registered: the store answers.
        let reader = container.newBackgroundContext()
        try reader.performAndWait { () throws -> Void in
            #expect(try Self.titles(reader, NSPredicate(format: "entity == %@", book)) == ["Dune", "Emma"])
            #expect(try Self.titles(reader, NSPredicate(format: "self.entity == %@", book)) == ["Dune", "Emma"])
            #expect(try Self.titles(reader, NSPredicate(format: "%@ == entity", film)) == ["Alien"])
            // The entity itself, not its subentities: Core Data compares the entity number.
            #expect(try Self.titles(reader, NSPredicate(format: "entity == %@", item)) == ["Lamp"])
            #expect(try Self.titles(reader, NSPredicate(format: "entity != %@", book)) == ["Alien", "Lamp"])
            #expect(try Self.titles(reader, NSPredicate(format: "entity IN %@", [book, film])) == ["Alien", "Dune", "Emma"])
            #expect(try Self.titles(reader, NSPredicate(format: "entity == %@ AND title BEGINSWITH 'E'", book)) == ["Emma"])
            #expect(try Self.titles(reader, NSPredicate(format: "entity == %@", book), entity: "Book") == ["Dune", "Emma"])
            #expect(try Self.titles(reader, NSPredicate(format: "entity == %@", film), entity: "Book") == [])
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "entity == %@", book)
            #expect(try reader.count(for: request) == 2)
        }
        // With changes pending, the fetch merges them in memory by the same predicate.
        _ = OwnKeysByKeyTests.insert("Book", "Bleak House", context)
        #expect(try Self.titles(context, NSPredicate(format: "entity == %@", book)) == ["Bleak House", "Dune", "Emma"])
        #expect(try Self.titles(context, NSPredicate(format: "entity != %@", book)) == ["Alien", "Lamp"])
    }

    @Test func theObjectsOtherPropertiesAreRefusedInAFetch() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (_, context) = try Self.seeded(store)
        for format in ["isDeleted == NO", "entity.name == 'Book'", "self.entity.name == 'Book'", "objectID.isTemporaryID == NO",
                       "hasChanges == YES", "isFault == NO", "faultingState == 0", "shelf.isInserted == YES", "inserted == NO"] {
            #expect(throws: (any Error).self, "\(format)") { try Self.titles(context, NSPredicate(format: format)) }
            do {
                _ = try Self.titles(context, NSPredicate(format: format))
            } catch {
                #expect("\(error)".contains("cannot evaluate in SQL"), "\(format): \(error)")
            }
        }
        let sorted = NSFetchRequest<NSManagedObject>(entityName: "Item")
        sorted.sortDescriptors = [NSSortDescriptor(key: "entity.name", ascending: true)]
        #expect { try context.fetch(sorted) } throws: { "\($0)".contains("cannot evaluate in SQL") }
        // Filtering the fetched objects in memory is the way.
        let all = try Self.titles(context, NSPredicate(value: true))
        #expect(all == ["Alien", "Dune", "Emma", "Lamp"])
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        let books = try context.fetch(request).filtered(using: NSPredicate(format: "entity.name == 'Book'"))
        #expect(books.count == 2)
    }

    @Test func aControllerSectionsByTheEntityName() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (_, context) = try Self.seeded(store)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "entity.name", cacheName: nil)
        try controller.performFetch()
        #expect(controller.sections?.map(\.name) == ["Film", "Book", "Item"])
        #expect(controller.sections?.map(\.numberOfObjects) == [1, 2, 1])
    }
}

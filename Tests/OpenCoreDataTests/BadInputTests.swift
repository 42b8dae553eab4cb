import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Bad input gets a clear error on every path, and loses nothing (issue 11).
@Suite("Bad input: clear errors")
struct BadInputTests {
    @Test func anUnbalancedRegularExpressionFailsTheFetchAsItFailsInMemory() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        insertProducts(context, count: 3)
        try context.save()
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.predicate = NSPredicate(format: "name MATCHES %@", "b)|(c")
        #expect { try context.fetch(request) } throws: { "\($0)".contains("b)|(c") }
        #expect(throws: (any Error).self) { try request.predicate!.evaluate(validating: ["name": "abc"]) }
    }

    @Test func anUnknownSectionNameKeyPathFailsPerformFetch() throws {
        let context = try makeItemsContext()
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            for path in ["nonsense", "group.name", ""] {
                let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                            sectionNameKeyPath: path, cacheName: nil)
                let error = try #require(throws: CoreDataError.self) { try controller.performFetch() }
                #expect(error.code == NSCoreDataError)
                let detail = path == "group.name" ? ": group is an attribute of entity Item, not a relationship" : ""
                #expect(error.message == "keypath \(path) not found in entity Item (sectionNameKeyPath)\(detail)")
                #expect(controller.sections == nil)
            }
        }
    }

    /// Another coordinator deleted the row: a save of changes to the object is a merge conflict naming
    /// it (was "Products.name is a required value." when the object's fault fired after the delete).
    @Test func updatingARowDeletedElsewhereIsAConflictNamingTheObject() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let first = try store.container().viewContext
        let products = insertProducts(first, count: 2)
        try first.save()
        let ids = products.map(\.objectID)
        let other = try store.container().viewContext
        // Kept as a fault holding nils (by default it would become deleted: ObjectHooksTests).
        other.shouldDeleteInaccessibleFaults = false
        let fetched = try other.existingObject(with: ids[0])       // values read before the delete
        let fault = other.object(with: ids[1])                      // a fault, fired after the delete
        for id in ids { first.delete(first.object(with: id)) }
        try first.save()
        for object in [fetched, fault] {
            object.setValue(7, forKey: "price")
            let error = try #require(throws: CoreDataError.self) { try other.save() }
            #expect(error.code == NSManagedObjectMergeError)
            #expect(error.message.contains("Products \(object.objectID.uriRepresentation().lastPathComponent)"), "\(error.message)")
            let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
            #expect(conflicts?.map(\.sourceObject) == [object])
            #expect(conflicts?.first?.persistedSnapshot == nil, "the row is gone")
            #expect(other.hasChanges, "the context keeps its changes")
            other.rollback()
        }
    }
}

import Foundation
import Testing
@testable import OpenCoreData

/// `NSFetchedPropertyDescription`: a property whose value is its fetch request's results, fetched when
/// first read with `$FETCH_SOURCE` bound to the object, kept until the object is refreshed.
@Suite("Fetched properties")
struct FetchedPropertyTests {
    /// Shelf (label, minimum) with fetched property `heavyBooks`: the books whose shelf label is the
    /// shelf's (`$FETCH_SOURCE.label`) and whose weight is above the shelf's minimum.
    static func model(predicate: String) -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = type
            a.isOptional = true
            return a
        }
        let shelf = NSEntityDescription()
        shelf.name = "Shelf"
        let book = NSEntityDescription()
        book.name = "Book"
        book.properties = [attribute("title", .stringAttributeType), attribute("shelfLabel", .stringAttributeType),
                           attribute("weight", .integer64AttributeType)]
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.entity = book
        request.predicate = NSPredicate(format: predicate)
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let fetched = NSFetchedPropertyDescription()
        fetched.name = "heavyBooks"
        fetched.fetchRequest = request
        shelf.properties = [attribute("label", .stringAttributeType), attribute("minimum", .integer64AttributeType), fetched]
        let model = NSManagedObjectModel()
        model.entities = [shelf, book]
        return model
    }

    static func container(_ model: NSManagedObjectModel) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Fetched", managedObjectModel: model)
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    static func book(_ title: String, _ label: String, _ weight: Int, in context: NSManagedObjectContext) {
        let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
        book.setValue(title, forKey: "title")
        book.setValue(label, forKey: "shelfLabel")
        book.setValue(weight, forKey: "weight")
    }

    static func titles(_ value: Any?) -> [String] {
        ((value as? [Any]) ?? []).compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
    }

    @Test func readingTheFetchedPropertyRunsItsRequestWithTheObjectAsFetchSource() throws {
        let container = try Self.container(Self.model(predicate: "shelfLabel == $FETCH_SOURCE.label AND weight > $FETCH_SOURCE.minimum"))
        let context = container.viewContext
        let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
        shelf.setValue("A", forKey: "label")
        shelf.setValue(2, forKey: "minimum")
        Self.book("Dune", "A", 5, in: context)
        Self.book("Emma", "A", 1, in: context)
        Self.book("Beowulf", "A", 3, in: context)
        Self.book("Carmilla", "B", 9, in: context)
        try context.save()
        #expect(Self.titles(shelf.value(forKey: "heavyBooks")) == ["Beowulf", "Dune"])
    }

    @Test func theResultsAreKeptUntilTheObjectIsRefreshed() throws {
        let container = try Self.container(Self.model(predicate: "shelfLabel == $FETCH_SOURCE.label"))
        let context = container.viewContext
        let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
        shelf.setValue("A", forKey: "label")
        Self.book("Dune", "A", 5, in: context)
        try context.save()
        #expect(Self.titles(shelf.value(forKey: "heavyBooks")) == ["Dune"])
        Self.book("Emma", "A", 1, in: context)
        try context.save()
        // Cached: a later save does not change the value (Core Data reevaluates only on refresh).
        #expect(Self.titles(shelf.value(forKey: "heavyBooks")) == ["Dune"])
        context.refresh(shelf, mergeChanges: false)
        #expect(Self.titles(shelf.value(forKey: "heavyBooks")) == ["Dune", "Emma"])
    }

    @Test func theFetchRequestIsTheDescriptionsAndTheValueAnArray() throws {
        let container = try Self.container(Self.model(predicate: "shelfLabel == $FETCH_SOURCE.label"))
        let context = container.viewContext
        let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
        shelf.setValue("none", forKey: "label")
        try context.save()
        #expect((shelf.value(forKey: "heavyBooks") as? [Any])?.isEmpty == true)
        let description = try #require(shelf.entity.propertiesByName["heavyBooks"] as? NSFetchedPropertyDescription)
        #expect(description.fetchRequest?.entityName == "Book")
    }
}

import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Batch requests (issue 38, item 1): `NSBatchUpdateRequest`, `NSBatchDeleteRequest` and
/// `NSBatchInsertRequest` through `execute(_:)`, on a real SQLite store: their result types, delete
/// rules, uniqueness constraints (insert as upsert), bad input that writes nothing (the file's bytes
/// compared), contexts bypassed until they merge the returned IDs, and controllers reporting the merge.
@Suite("Batch requests")
struct BatchRequestTests {
    /// Author (name unique) —books (cascade)→ Book ←→ Tag (many-to-many); Author ↔ Portrait (one-to-one,
    /// nullify); Publisher —books (deny)→ Book.
    static func model() -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSAttributeDescription(name: "age", type: .integer64AttributeType, defaultValue: 30),
            NSRelationshipDescription(name: "books", destination: "Book", inverse: "author", toMany: true, deleteRule: .cascadeDeleteRule),
            NSRelationshipDescription(name: "portrait", destination: "Portrait", inverse: "author"),
        ])
        author.uniquenessConstraints = [["name"]]
        let book = NSEntityDescription(name: "Book", properties: [
            NSAttributeDescription(name: "title", type: .stringAttributeType, optional: false),
            NSAttributeDescription(name: "price", type: .doubleAttributeType),
            NSRelationshipDescription(name: "author", destination: "Author", inverse: "books"),
            NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "books", toMany: true),
            NSRelationshipDescription(name: "publisher", destination: "Publisher", inverse: "books"),
        ])
        let tag = NSEntityDescription(name: "Tag", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "books", destination: "Book", inverse: "tags", toMany: true),
        ])
        let portrait = NSEntityDescription(name: "Portrait", properties: [
            NSAttributeDescription(name: "caption", type: .stringAttributeType),
            NSRelationshipDescription(name: "author", destination: "Author", inverse: "portrait"),
        ])
        let publisher = NSEntityDescription(name: "Publisher", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "books", destination: "Book", inverse: "publisher", toMany: true, deleteRule: .denyDeleteRule),
        ])
        return NSManagedObjectModel(entities: [author, book, tag, portrait, publisher])
    }

    /// Ada (books A1 4.0, A2 6.0, portrait), Bo (book B1 10.0), tag "t" on A1 and B1, publisher P with B1.
    func library() throws -> (TemporaryStore, NSPersistentContainer) {
        let store = TemporaryStore()
        let container = try store.container(Self.model())
        let context = container.viewContext
        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let ada = insert("Author", ["name": "Ada", "age": 36]), bo = insert("Author", ["name": "Bo", "age": 50])
        let a1 = insert("Book", ["title": "A1", "price": 4.0, "author": ada]), b1 = insert("Book", ["title": "B1", "price": 10.0, "author": bo])
        _ = insert("Book", ["title": "A2", "price": 6.0, "author": ada])
        _ = insert("Portrait", ["caption": "Ada at 30", "author": ada])
        _ = insert("Tag", ["name": "t", "books": NSSet(array: [a1, b1])])
        _ = insert("Publisher", ["name": "P", "books": NSSet(array: [b1])])
        try context.save()
        return (store, container)
    }

    func fetch(_ entity: String, _ key: String, in context: NSManagedObjectContext, where format: String? = nil) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request).map { "\($0.value(forKey: key) ?? "nil")" }
    }

    /// A controller of every Book by title, its changes recorded, fetched.
    func booksByTitle(in context: NSManagedObjectContext) throws -> (NSFetchedResultsController<NSManagedObject>, ChangeRecorder) {
        let books = NSFetchRequest<NSManagedObject>(entityName: "Book")
        books.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: books, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let delegate = ChangeRecorder()
        controller.delegate = delegate
        try controller.performFetch()
        return (controller, delegate)
    }

    /// A recorder's changes as "type row" (the new row for an insert).
    func changes(_ recorder: ChangeRecorder) -> [String] {
        let names: [NSFetchedResultsChangeType: String] = [.insert: "insert", .delete: "delete", .move: "move", .update: "update"]
        return recorder.changes.map { "\(names[$0.type]!) \(($0.type == .insert ? $0.newIndexPath : $0.indexPath)?.row ?? -1)" }
    }

    func bytes(_ store: TemporaryStore) throws -> Data {
        try Data(contentsOf: store.url) + ((try? Data(contentsOf: URL(fileURLWithPath: store.url.path + "-wal"))) ?? Data())
    }

    func sqlite(_ container: NSPersistentContainer) -> SQLiteStore {
        container.persistentStoreCoordinator.persistentStores[0].backend as! SQLiteStore
    }

    // MARK: - Update

    @Test("A batch update sets constants and expressions on the matches only, raising their row versions")
    func updateSetsValues() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.predicate = NSPredicate(format: "author.name == %@", "Ada")
        request.propertiesToUpdate = ["price": NSExpression(format: "price * 2"), "title": "Sold out"]
        request.resultType = .updatedObjectsCountResultType
        let context = container.newBackgroundContext()
        let result = try context.performAndWait { try context.execute(request) } as! NSBatchUpdateResult
        #expect(result.resultType == .updatedObjectsCountResultType)
        #expect((result.result as? NSNumber)?.intValue == 2)
        let fresh = container.newBackgroundContext()
        try fresh.performAndWait { () throws in
            #expect(try fetch("Book", "price", in: fresh) == ["8.0", "10.0", "12.0"])
            #expect(try fetch("Book", "title", in: fresh) == ["B1", "Sold out", "Sold out"])
        }
        var versions: [Int64] = []
        try sqlite(container).write { db in try db.query("SELECT Z_OPT FROM ZBOOK ORDER BY ZPRICE") { versions.append($0.int64(0)) } }
        #expect(versions == [2, 1, 2])
    }

    @Test("A batch update runs one SELECT of keys, versions and computed values (then a prepared UPDATE per row, which the recorder does not list)")
    func updateSQL() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.predicate = NSPredicate(format: "price < 5")
        request.propertiesToUpdate = ["price": NSExpression(format: "price + 1")]
        let sql = try sqlite(container).recordingSQL { _ = try container.viewContext.execute(request) }
        #expect(sql == ["SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, (t0.ZPRICE + ?) FROM ZBOOK t0 WHERE t0.ZPRICE < ?"])
    }

    @Test("Batch update results: status, count and object IDs; a coordinator's execute(_:with:) returns the same")
    func updateResultTypes() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let request = NSBatchUpdateRequest(entity: container.managedObjectModel.entitiesByName["Author"]!)
        request.propertiesToUpdate = ["age": 40]
        let status = try container.viewContext.execute(request) as! NSBatchUpdateResult
        #expect(status.resultType == .statusOnlyResultType && (status.result as? NSNumber)?.boolValue == true)
        request.resultType = .updatedObjectIDsResultType
        let ids = try container.persistentStoreCoordinator.execute(request, with: container.viewContext) as! NSBatchUpdateResult
        let names = try (ids.result as! [NSManagedObjectID]).map { try container.viewContext.existingObject(with: $0).value(forKey: "name") as! String }
        #expect(names.sorted() == ["Ada", "Bo"])
        #expect(request.requestType == .batchUpdateRequestType && request.includesSubentities)
    }

    @Test("Contexts keep their objects until they merge the IDs; then objects and a controller show the update")
    func updateMergesIntoContexts() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let context = container.viewContext
        let (controller, delegate) = try booksByTitle(in: context)
        let a1 = controller.fetchedObjects![0]
        #expect(a1.value(forKey: "price") as? Double == 4.0)
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.predicate = NSPredicate(format: "title == 'A1'")
        request.propertiesToUpdate = ["price": 99.0]
        request.resultType = .updatedObjectIDsResultType
        let ids = (try context.execute(request) as! NSBatchUpdateResult).result as! [NSManagedObjectID]
        #expect(a1.value(forKey: "price") as? Double == 4.0)
        #expect(changes(delegate).isEmpty)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [context])
        #expect(a1.value(forKey: "price") as? Double == 99.0)
        #expect(changes(delegate) == ["update 0"])
    }

    @Test("Bad batch updates throw naming the entity and key, and write nothing")
    func updateBadInput() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let before = try bytes(store)
        func failure(_ entity: String, _ properties: [AnyHashable: Any]) -> String {
            let request = NSBatchUpdateRequest(entityName: entity)
            request.propertiesToUpdate = properties
            do { _ = try container.viewContext.execute(request); return "no error" } catch { return "\(error)" }
        }
        #expect(failure("Book", ["colour": "red"]).contains("Book has no property colour"))
        #expect(failure("Book", ["author": NSNull()]).contains("Book.author is not a stored attribute"))
        #expect(failure("Book", ["price": "cheap"]).contains("Book.price must be a"))
        #expect(failure("Book", ["title": NSNull()]).contains("Book.title is a required value"))
        #expect(failure("Book", ["price": NSExpression(format: "nosuch + 1")]).contains("nosuch"))
        #expect(failure("Nothing", ["price": 1]).contains("Nothing is not in the coordinator's model"))
        #expect(failure("Author", ["name": "Same"]).contains("UNIQUE"))
        #expect(try bytes(store) == before)
    }

    // MARK: - Delete

    @Test("A batch delete cascades, nullifies the one-to-one back, removes join rows, and returns every deleted ID")
    func deleteAppliesRules() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let matching = NSFetchRequest<any NSFetchRequestResult>(entityName: "Author")
        matching.predicate = NSPredicate(format: "name == 'Ada'")
        let request = NSBatchDeleteRequest(fetchRequest: matching)
        request.resultType = .resultTypeObjectIDs
        let ids = (try container.viewContext.execute(request) as! NSBatchDeleteResult).result as! [NSManagedObjectID]
        #expect(ids.map { $0.entity.name! } == ["Author", "Book", "Book"])
        let fresh = container.newBackgroundContext()
        try fresh.performAndWait { () throws in
            #expect(try fetch("Author", "name", in: fresh) == ["Bo"])
            #expect(try fetch("Book", "title", in: fresh) == ["B1"])
            #expect(try fetch("Portrait", "caption", in: fresh, where: "author == nil") == ["Ada at 30"])
            let tag = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).first!
            #expect((tag.value(forKey: "books") as! NSSet).count == 1)
        }
        var joinRows = 0
        try sqlite(container).write { db in
            let join = sqlite(container).joinTables.first!.table.name
            try db.query("SELECT count(*) FROM \(join)") { joinRows = Int($0.int64(0)) }
        }
        #expect(joinRows == 1)
    }

    @Test("Deny refuses a batch delete while the relationship names an object; the file is unchanged")
    func deleteDeny() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let before = try bytes(store)
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Publisher"))
        #expect(throws: (any Error).self) { try container.viewContext.execute(request) }
        do { _ = try container.viewContext.execute(request) } catch {
            #expect((error as NSError).code == NSValidationRelationshipDeniedDeleteError)
            #expect("\(error)".contains("books has a Deny delete rule"))
        }
        #expect(try bytes(store) == before)
    }

    @Test("A batch delete by object IDs; mixed entities and unsaved objects are errors; merging removes objects from a controller")
    func deleteByIDs() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let context = container.viewContext
        let (controller, delegate) = try booksByTitle(in: context)
        let a2 = controller.fetchedObjects![1]
        let author = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first!
        #expect(throws: (any Error).self) { try context.execute(NSBatchDeleteRequest(objectIDs: [a2.objectID, author.objectID])) }
        let unsaved = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
        #expect(throws: (any Error).self) { try context.execute(NSBatchDeleteRequest(objectIDs: [unsaved.objectID])) }
        context.delete(unsaved)
        let request = NSBatchDeleteRequest(objectIDs: [a2.objectID])
        request.resultType = .resultTypeCount
        #expect(((try context.execute(request) as! NSBatchDeleteResult).result as? NSNumber)?.intValue == 1)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: [a2.objectID]], into: [context])
        #expect(controller.fetchedObjects!.map { $0.value(forKey: "title") as! String } == ["A1", "B1"])
        #expect(changes(delegate) == ["delete 1"])
    }

    // MARK: - Insert

    @Test("A batch insert writes dictionaries with defaults, reserves keys in Z_PRIMARYKEY, and upserts under a constraint")
    func insertUpserts() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let request = NSBatchInsertRequest(entityName: "Author", objects: [["name": "Cy"], ["name": "Ada", "age": 37], ["name": "Cy", "age": 5]])
        request.resultType = .objectIDs
        let ids = (try container.viewContext.execute(request) as! NSBatchInsertResult).result as! [NSManagedObjectID]
        #expect(ids.count == 3 && ids[0] == ids[2] && ids[0] != ids[1])
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            #expect(try fetch("Author", "name", in: context) == ["Ada", "Bo", "Cy"])
            #expect(try fetch("Author", "age", in: context) == ["5", "37", "50"])
            let dee = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            dee.setValue("Dee", forKey: "name")
            try context.save()
            #expect(try fetch("Author", "name", in: context).count == 4)
        }
    }

    @Test("Batch inserts from a dictionary handler and a managed object handler; merging the IDs inserts into a controller")
    func insertHandlers() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let context = container.viewContext
        let (controller, delegate) = try booksByTitle(in: context)
        var n = 0
        let byDictionary = NSBatchInsertRequest(entityName: "Book") { (dictionary: NSMutableDictionary) in
            n += 1
            guard n <= 2 else { return true }
            dictionary["title"] = "D\(n)"
            dictionary["price"] = Double(n)
            return false
        }
        byDictionary.resultType = .count
        #expect(((try context.execute(byDictionary) as! NSBatchInsertResult).result as? NSNumber)?.intValue == 2)
        var m = 0
        let byObject = NSBatchInsertRequest(entity: container.managedObjectModel.entitiesByName["Book"]!) { (object: NSManagedObject) in
            m += 1
            guard m <= 1 else { return true }
            object.setValue("M1", forKey: "title")
            return false
        }
        byObject.resultType = .objectIDs
        let ids = (try context.execute(byObject) as! NSBatchInsertResult).result as! [NSManagedObjectID]
        let fresh = container.newBackgroundContext()
        #expect(try fresh.performAndWait { try fetch("Book", "title", in: fresh) } == ["A1", "A2", "B1", "D1", "D2", "M1"])
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: ids], into: [context])
        #expect(controller.fetchedObjects!.map { $0.value(forKey: "title") as! String } == ["A1", "A2", "B1", "M1"])
        #expect(changes(delegate) == ["insert 3"])
    }

    @Test("Bad batch inserts throw naming the entity and key, and write nothing")
    func insertBadInput() throws {
        let (store, container) = try library()
        defer { store.cleanUp() }
        let before = try bytes(store)
        func failure(_ objects: [[String: Any]]) -> String {
            do { _ = try container.viewContext.execute(NSBatchInsertRequest(entityName: "Book", objects: objects)); return "no error" } catch { return "\(error)" }
        }
        #expect(failure([["title": "ok"], ["title": "x", "isbn": "1"]]).contains("Book has no property isbn"))
        #expect(failure([["price": 1.0]]).contains("Book.title is a required value"))
        #expect(failure([["title": "x", "author": NSNull()]]).contains("Book.author is not a stored attribute"))
        #expect(failure([["title": 12]]).contains("Book.title must be a"))
        #expect(try bytes(store) == before)
    }
}

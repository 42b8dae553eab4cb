import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

@Suite("Context queues, merging, parent and child")
struct ContextQueueTests {
    struct Boom: Error {}

    /// Two background contexts of one container on `store`, and the ID of a product `a` saved.
    func twoContextsSharingOneProduct(_ store: TemporaryStore) throws
        -> (NSPersistentContainer, NSManagedObjectContext, NSManagedObjectContext, NSManagedObjectID) {
        let container = try store.container()
        let a = container.newBackgroundContext(), b = container.newBackgroundContext()
        let id = try a.performAndWait { () -> NSManagedObjectID in
            let p = SeedModel.insertProducts(a, count: 1)[0]
            try a.save()
            return p.objectID
        }
        return (container, a, b, id)
    }

    /// Saves reach another context in the order their notifications were posted (each on its saving
    /// context's queue), which need not be the order they committed: a row merged late that is older
    /// than the one the object holds must not undo the newer one. (Found as a rare failure of
    /// `ConcurrencyTests.writersAndAReader`: the view context kept a counter one behind the store.)
    @Test func aSaveMergedLateDoesNotUndoANewerOne() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (_, a, b, id) = try twoContextsSharingOneProduct(store)
        let saves = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: a, queue: nil) { saves.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let product = try b.performAndWait { () -> Products in
            let p = try #require(try b.existingObject(with: id) as? Products)
            _ = p.price  // loaded, at the row version of the first save
            return p
        }
        try a.performAndWait {
            let p = try #require(try a.existingObject(with: id) as? Products)
            p.price = 501
            try a.save()
            p.price = 502
            try a.save()
        }
        #expect(saves.notes.count == 2)
        b.performAndWait {
            b.mergeChanges(fromContextDidSave: saves.notes[1])
            b.mergeChanges(fromContextDidSave: saves.notes[0])
            #expect(product.price == 502)
        }
    }

    @Test func performAndWaitIsReentrantRethrowingAndReturnsItsValue() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        for context in [container.newBackgroundContext(), container.viewContext] {
            let value = context.performAndWait { context.performAndWait { 42 } }
            #expect(value == 42)
            #expect(throws: Boom.self) { try context.performAndWait { throw Boom() } }
            let count = try context.performAndWait { () -> Int in
                SeedModel.insertProducts(context, count: 3)
                try context.save()
                return try context.count(for: NSFetchRequest<Products>(entityName: "Products"))
            }
            #expect(count >= 3)
        }
    }

    @Test func asyncPerformAndBackgroundTasks() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let background = container.newBackgroundContext()
        let count = try await background.perform {
            SeedModel.insertProducts(background, count: 4)
            try background.save()
            return try background.count(for: NSFetchRequest<Products>(entityName: "Products"))
        }
        #expect(count == 4)
        let seen = await container.viewContext.perform { (try? container.viewContext.count(for: NSFetchRequest<Products>(entityName: "Products"))) ?? -1 }
        #expect(seen == 4)
        let inTask = try await container.performBackgroundTask { context in
            try context.count(for: NSFetchRequest<Products>(entityName: "Products"))
        }
        #expect(inTask == 4)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            container.performBackgroundTask { context in
                #expect((try? context.count(for: NSFetchRequest<Products>(entityName: "Products"))) == 4)
                done.resume()
            }
        }
    }

    @Test func backgroundSaveReachesTheViewContextWithChangedKeys() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let view = container.viewContext
        view.automaticallyMergesChangesFromParent = true
        let ids: [NSManagedObjectID] = try view.performAndWait {
            let products = SeedModel.insertProducts(view, count: 3)
            try view.save()
            _ = try view.fetch(NSFetchRequest<Products>(entityName: "Products")).map(\.price)
            return products.map(\.objectID)
        }
        let box = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: view, queue: nil) { note in
            box.append(note)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let p = try #require(try background.existingObject(with: ids[0]) as? Products)
            p.price = 7777
            background.delete(try background.existingObject(with: ids[1]))
            let fresh = Products(context: background)
            fresh.name = "Кефир"
            try background.save()
        }
        view.performAndWait {}  // the merge was queued on the view context's queue before this
        let notes = box.notes
        #expect(notes.count == 1)
        let info = notes.first?.userInfo ?? [:]
        #expect((info[NSUpdatedObjectsKey] as? Set<NSManagedObject>)?.map(\.objectID) == [ids[0]])
        #expect((info[NSDeletedObjectsKey] as? Set<NSManagedObject>)?.map(\.objectID) == [ids[1]])
        #expect((info[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        view.performAndWait {
            #expect((view.registeredObject(for: ids[0]) as? Products)?.price == 7777)
            #expect(view.registeredObject(for: ids[1]) == nil)
            #expect(!view.hasChanges)
        }
    }

    @Test func mergeKeepsTheReceiversUnsavedChanges() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (_, a, b, id) = try twoContextsSharingOneProduct(store)
        let box = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: b, queue: nil) { box.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        try a.performAndWait {
            let p = try #require(try a.existingObject(with: id) as? Products)
            p.name = "local name"
        }
        try b.performAndWait {
            let p = try #require(try b.existingObject(with: id) as? Products)
            p.price = 5
            try b.save()
        }
        try a.performAndWait {
            a.mergeChanges(fromContextDidSave: try #require(box.notes.first))
            let p = try #require(a.registeredObject(for: id) as? Products)
            #expect(p.price == 5)
            #expect(p.name == "local name")
            #expect(p.changedValues().keys.sorted() == ["name"])
            try a.save()  // no conflict: the merge brought the new row version
        }
    }

    @Test func remoteSaveMergeAndRefresh() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.newBackgroundContext()
        let id = try context.performAndWait { () -> NSManagedObjectID in
            let p = SeedModel.insertProducts(context, count: 1)[0]
            p.price = 1
            try context.save()
            return p.objectID
        }
        // Another coordinator (as another process would) changes the row.
        let other = try store.container()
        try other.viewContext.performAndWait {
            let otherID = try #require(other.persistentStoreCoordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()))
            let p = try #require(try other.viewContext.existingObject(with: otherID) as? Products)
            p.price = 2
            try other.viewContext.save()
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [id.uriRepresentation()]], into: [context])
        context.performAndWait {
            #expect((context.registeredObject(for: id) as? Products)?.price == 2)
        }
        try other.viewContext.performAndWait {
            (try other.viewContext.fetch(NSFetchRequest<Products>(entityName: "Products")).first)?.price = 3
            try other.viewContext.save()
        }
        context.performAndWait {
            let p = context.registeredObject(for: id) as! Products
            context.refresh(p, mergeChanges: false)
            #expect(p.isFault)
            #expect(p.price == 3)
            p.name = "kept"
            context.refreshAllObjects()
            #expect(p.name == "kept")
        }
    }

    @Test func childContextsSaveIntoTheirParentAndSeeItsUnsavedState() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let parent = container.newBackgroundContext()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try parent.performAndWait {
            SeedModel.insertProducts(parent, count: 2)
            try parent.save()
            let unsaved = Products(context: parent)
            unsaved.name = "unsaved in parent"
            unsaved.price = 1
        }
        try child.performAndWait {
            let all = try child.fetch(NSFetchRequest<Products>(entityName: "Products"))
            #expect(all.count == 3)
            #expect(all.contains { $0.name == "unsaved in parent" })
            let mine = Products(context: child)
            mine.name = "from child"
            all.first { $0.name != "unsaved in parent" }!.price = 4242
            try child.save()
        }
        try parent.performAndWait {
            #expect(parent.insertedObjects.count == 2)
            #expect(parent.updatedObjects.count == 1)
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.predicate = NSPredicate(format: "price == 4242")
            #expect(try parent.count(for: request) == 1)
            try parent.save()
        }
        let fresh = try store.container().viewContext
        #expect(try fresh.count(for: NSFetchRequest<Products>(entityName: "Products")) == 4)
    }

    @Test func conflictUnderTheErrorPolicyChangesNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (_, a, b, id) = try twoContextsSharingOneProduct(store)
        try a.performAndWait { _ = try a.existingObject(with: id).value(forKey: "price") }
        try b.performAndWait {
            (try b.existingObject(with: id) as! Products).price = 10
            try b.save()
        }
        try a.performAndWait {
            let p = a.registeredObject(for: id) as! Products
            p.price = 20
            let extra = Products(context: a)
            extra.name = "extra"
            do {
                try a.save()
                Issue.record("expected a merge conflict")
            } catch let error as NSError {
                #expect(error.code == NSManagedObjectMergeError)
                let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? []
                #expect(conflicts.count == 1)
                #expect(conflicts.first?.sourceObject === p)
                #expect(conflicts.first?.persistedSnapshot?["price"] as? Int == 10)
            }
            #expect(p.price == 20)
            #expect(extra.objectID.isTemporaryID)
            #expect(a.insertedObjects.count == 1)
            #expect(a.updatedObjects == [p])
            a.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            try a.save()
        }
        let check = try store.container().viewContext
        let rows = try check.fetch(NSFetchRequest<Products>(entityName: "Products"))
        #expect(rows.count == 2)
        #expect(rows.contains { $0.price == 20 })
    }
}

import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A save's notifications carry Core Data's sets for every observer (by name, by object, for any object,
/// of every notification); a coordinator whose `postsChangeSets` is off posts them without the sets, and
/// merging contexts, fetched results controllers and the change sequences follow its saves all the same
/// (docs/Store.md, "Notifications and their sets").
@Suite("Save payloads")
struct SavePayloadTests {
    /// Three saved products, then a save that inserts one, updates one and deletes one.
    private func secondSave(_ context: NSManagedObjectContext) throws -> (inserted: Products, updated: Products, deleted: Products) {
        let first = insertProducts(context, count: 3)
        try context.save()
        let inserted = insertProducts(context, count: 1, seed: 7)[0]
        first[0].price = 4242
        context.delete(first[1])
        try context.save()
        return (inserted, first[0], first[1])
    }

    private func objects(_ note: Notification?, _ key: String) -> Set<NSManagedObject>? { note?.userInfo?[key] as? Set<NSManagedObject> }
    private func ids(_ note: Notification?, _ key: String) -> Set<NSManagedObjectID>? { note?.userInfo?[key] as? Set<NSManagedObjectID> }

    @Test func observersByNameByObjectAndForAnyObjectGetCoreDataSets() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().newBackgroundContext()
        let center = NotificationCenter.default
        let byObject = NotificationInbox(), anyObject = NotificationInbox(), byAlias = NotificationInbox(), byID = NotificationInbox(), changes = NotificationInbox()
        let observers = [
            center.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: context, queue: nil) { byObject.append($0) },
            center.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: nil, queue: nil) { note in
                if (note.object as AnyObject?) === context { anyObject.append(note) }
            },
            center.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { byAlias.append($0) },
            center.addObserver(forName: .NSManagedObjectContextDidSaveObjectIDs, object: context, queue: nil) { byID.append($0) },
            center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { changes.append($0) },
        ]
        defer { observers.forEach(center.removeObserver) }
        let saved = try context.performAndWait { try secondSave(context) }

        for box in [byObject, anyObject, byAlias] {
            #expect(box.notes.count == 2)
            let last = box.notes.last
            #expect(objects(last, NSInsertedObjectsKey) == [saved.inserted])
            #expect(objects(last, NSUpdatedObjectsKey) == [saved.updated])
            #expect(objects(last, NSDeletedObjectsKey) == [saved.deleted])
            #expect(objects(box.notes.first, NSInsertedObjectsKey)?.count == 3)
        }
        #expect(byID.notes.count == 2)
        #expect(ids(byID.notes.last, NSInsertedObjectIDsKey) == [saved.inserted.objectID])
        #expect(ids(byID.notes.last, NSUpdatedObjectIDsKey) == [saved.updated.objectID])
        #expect(ids(byID.notes.last, NSDeletedObjectIDsKey) == [saved.deleted.objectID])
        #expect(ids(byID.notes.last, NSInsertedObjectIDsKey)?.first?.isTemporaryID == false)
        // ObjectsDidChange, posted by each save's processPendingChanges().
        #expect(objects(changes.notes.last, NSInsertedObjectsKey) == [saved.inserted])
        #expect(objects(changes.notes.last, NSUpdatedObjectsKey) == [saved.updated])
        #expect(objects(changes.notes.last, NSDeletedObjectsKey) == [saved.deleted])
    }

    @Test func anObserverOfEveryNotificationGetsCoreDataSets() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        #expect(container.persistentStoreCoordinator.postsChangeSets)
        let context = container.newBackgroundContext()
        let center = NotificationCenter.default
        // No name at all: nothing tells the library that a DidSave is observed, and its sets are there.
        let saves = NotificationInbox(), idSaves = NotificationInbox(), changes = NotificationInbox()
        let observer = center.addObserver(forName: nil, object: context, queue: nil) { note in
            switch note.name.rawValue {
            case "NSManagingContextDidSaveChangesNotification": saves.append(note)
            case "NSManagedObjectContextDidSaveObjectIDsNotification": idSaves.append(note)
            case "NSObjectsChangedInManagingContextNotification": changes.append(note)
            default: break
            }
        }
        defer { center.removeObserver(observer) }
        let saved = try context.performAndWait { try secondSave(context) }
        #expect(objects(saves.notes.last, NSInsertedObjectsKey) == [saved.inserted])
        #expect(objects(saves.notes.last, NSUpdatedObjectsKey) == [saved.updated])
        #expect(objects(saves.notes.last, NSDeletedObjectsKey) == [saved.deleted])
        #expect(ids(idSaves.notes.last, NSInsertedObjectIDsKey) == [saved.inserted.objectID])
        #expect(ids(idSaves.notes.last, NSDeletedObjectIDsKey) == [saved.deleted.objectID])
        #expect(objects(changes.notes.last, NSUpdatedObjectsKey) == [saved.updated])
        #expect(NSManagedObjectContext.didSaveObjectsNotification.rawValue == "NSManagingContextDidSaveChangesNotification")
        #expect(NSManagedObjectContext.didChangeObjectsNotification.rawValue == "NSObjectsChangedInManagingContextNotification")
    }

    @Test func aContextNobodyObservesPostsItsNotificationsWithoutSets() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        container.persistentStoreCoordinator.postsChangeSets = false
        let context = container.newBackgroundContext()
        let center = NotificationCenter.default
        let saves = NotificationInbox(), idSaves = NotificationInbox(), changes = NotificationInbox()
        let observers = [
            center.addObserver(forName: .contextDidSave, object: context, queue: nil) { saves.append($0) },
            center.addObserver(forName: .contextDidSaveObjectIDs, object: context, queue: nil) { idSaves.append($0) },
            center.addObserver(forName: .contextObjectsDidChange, object: context, queue: nil) { changes.append($0) },
        ]
        defer { observers.forEach(center.removeObserver) }
        let products = try context.performAndWait {
            let products = insertProducts(context, count: 3)
            try context.save()
            return products
        }
        #expect(saves.notes.count == 1 && idSaves.notes.count == 1 && changes.notes.count == 1)
        #expect(objects(saves.notes[0], NSInsertedObjectsKey) == nil && objects(saves.notes[0], NSUpdatedObjectsKey) == nil)
        #expect(ids(idSaves.notes[0], NSInsertedObjectIDsKey) == nil)
        #expect(changes.notes[0].userInfo?.isEmpty ?? true)
        // The save itself is whole: rows in the store, store IDs, nothing pending.
        #expect(products.allSatisfy { !$0.objectID.isTemporaryID && !$0.isInserted && !$0.hasChanges })
        let reader = container.newBackgroundContext()
        #expect(try reader.performAndWait { try reader.count(for: NSFetchRequest<Products>(entityName: "Products")) } == 3)

        // Turned on again, the sets come back with the next save.
        container.persistentStoreCoordinator.postsChangeSets = true
        let saved = try context.performAndWait { try secondSave(context) }
        let last = saves.notes.last
        #expect(objects(last, NSInsertedObjectsKey) == [saved.inserted])
        #expect(objects(last, NSUpdatedObjectsKey) == [saved.updated])
        #expect(objects(last, NSDeletedObjectsKey) == [saved.deleted])
        let again = try context.performAndWait { try secondSave(context) }
        #expect(ids(idSaves.notes.last, NSInsertedObjectIDsKey) == [again.inserted.objectID])
        #expect(ids(idSaves.notes.last, NSUpdatedObjectIDsKey) == [again.updated.objectID])
        #expect(ids(idSaves.notes.last, NSDeletedObjectIDsKey) == [again.deleted.objectID])
    }

    @Test func aMergingContextGetsTheSavedRowsWithoutTheSets() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let view = container.viewContext
        view.automaticallyMergesChangesFromParent = true
        container.persistentStoreCoordinator.postsChangeSets = false
        let writer = container.newBackgroundContext()
        let saves = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: .contextDidSave, object: writer, queue: nil) { saves.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }

        let ids: [NSManagedObjectID] = try writer.performAndWait {
            let products = insertProducts(writer, count: 3)
            try writer.save()
            return products.map(\.objectID)
        }
        view.performAndWait {}  // the merge was queued on the view context's queue before this
        let merged = try view.performAndWait { try ids.map { try view.existingObject(with: $0) as! Products } }
        #expect(merged.map(\.objectID) == ids)
        #expect(view.registeredObjects.count == 3)
        #expect(objects(saves.notes.last, NSInsertedObjectsKey) == nil)
        #expect(saves.notes.last?.userInfo?[SavedChanges.userInfoKey] is SavedChanges)

        try writer.performAndWait {
            let product = try writer.existingObject(with: ids[0]) as! Products
            product.price = 9999
            writer.delete(try writer.existingObject(with: ids[1]))
            try writer.save()
        }
        view.performAndWait {}
        view.performAndWait {
            #expect(merged[0].price == 9999)
            #expect(view.registeredObject(for: ids[1]) == nil)
            #expect(!view.hasChanges)
        }
    }

    @Test func aControllerFollowsSavesOfAContextNobodyElseObserves() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        container.persistentStoreCoordinator.postsChangeSets = false
        let context = container.newBackgroundContext()
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        try context.performAndWait {
            try controller.performFetch()
            let products = insertProducts(context, count: 3)
            try context.save()
            #expect(Set(controller.fetchedObjects ?? []) == Set(products))
            #expect(recorder.changes.filter { $0.type == .insert }.count == 3)
            products[0].price = 100_000
            context.delete(products[1])
            try context.save()
            #expect(controller.fetchedObjects?.last == products[0])
            #expect(controller.fetchedObjects?.count == 2)
            #expect(products.allSatisfy { !$0.objectID.isTemporaryID })
        }
    }

    @Test func updatesOfSeveralColumnSetsInOneSaveWriteEachRow() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.newBackgroundContext()
        let (ids, original): ([NSManagedObjectID], [(String?, Int32)]) = try context.performAndWait {
            let products = insertProducts(context, count: 6)
            try context.save()
            let original = products.map { ($0.name, $0.price) }
            for (i, product) in products.enumerated() {
                switch i % 3 {
                case 0: product.price = Int32(1000 + i)
                case 1: product.name = "Сыр \(i)"
                default: (product.price, product.name) = (Int32(2000 + i), "Масло \(i)")
                }
            }
            try context.save()
            return (products.map(\.objectID), original)
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let rows = try ids.map { try reader.existingObject(with: $0) as! Products }
            for (i, row) in rows.enumerated() {
                switch i % 3 {
                case 0: #expect(row.price == Int32(1000 + i) && row.name == original[i].0)
                case 1: #expect(row.name == "Сыр \(i)" && row.price == original[i].1)
                default: #expect(row.price == Int32(2000 + i) && row.name == "Масло \(i)")
                }
            }
        }
    }

    @Test func textIsCheckedForNormalizationByteByByteAsByScalar() {
        var random = SeededRandom(seed: 36)
        let scalars: [UInt32] = [0x41, 0x7A, 0xE9, 0x2FF, 0x300, 0x301, 0x3A9, 0x419, 0x483, 0x489, 0x48A, 0x52F, 0x530,
                                 0x1E9B, 0x3042, 0x4E00, 0x9FFF, 0xAC00, 0xD7A3, 0xD7A4, 0xFB2A, 0x1F600, 0x10FFFF]
        for _ in 0..<2_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int(random.next() % 8) { text.append(Unicode.Scalar(scalars[Int(random.next() % UInt64(scalars.count))])!) }
            let string = String(text)
            let byBytes = string.utf8.withContiguousStorageIfAvailable(StoredText.isStable)
            #expect(byBytes == string.unicodeScalars.allSatisfy(StoredText.isStable), "\(string.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(StoredText.store("e\u{301}") == "\u{E9}")
        #expect(StoredText.store("Йогурт 1") == "Йогурт 1")
    }
}

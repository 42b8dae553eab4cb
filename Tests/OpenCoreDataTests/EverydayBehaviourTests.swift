import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Behaviours that ported apps' own tests expect of Core Data (issue 32, part B), each as Core Data
/// shows it.
@Suite("Everyday behaviours ported apps expect")
struct EverydayBehaviourTests {
    /// Counts the notifications of one name posted by one object.
    final class Counter: @unchecked Sendable {
        private(set) var notes: [Notification] = []
        private var observer: NSObjectProtocol?
        init(_ name: Notification.Name, _ object: AnyObject) {
            observer = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [unowned self] in notes.append($0) }
        }
        deinit { observer.map(NotificationCenter.default.removeObserver) }
    }

    @Test func aSaveWithNothingToSaveStillPostsWillSaveAndDidSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = context
        for saving in [context, child] {
            #expect(!saving.hasChanges)
            let will = Counter(NSManagedObjectContext.willSaveObjectsNotification, saving)
            let did = Counter(NSManagedObjectContext.didSaveObjectsNotification, saving)
            let ids = Counter(NSManagedObjectContext.didSaveObjectIDsNotification, saving)
            try saving.save()
            #expect(will.notes.count == 1)
            #expect(did.notes.count == 1 && ids.notes.count == 1)
            let info = try #require(did.notes.first?.userInfo)
            for key in [NSInsertedObjectsKey, NSUpdatedObjectsKey, NSDeletedObjectsKey] {
                #expect((info[key] as? Set<NSManagedObject>)?.isEmpty == true, "\(key)")
            }
            let idInfo = try #require(ids.notes.first?.userInfo)
            #expect((idInfo[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>)?.isEmpty == true)
        }
    }

    @Test func aChildsSaveIsProcessedByItsParentAtOnce() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(RelationshipModel.make())
        let parent = container.viewContext
        let existing = parent.make("Zoo", ["name": "Bronx"])
        try parent.save()
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        let request = NSFetchRequest<NSManagedObject>(entityName: "Zoo")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: parent, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        let changes = Counter(NSManagedObjectContext.didChangeObjectsNotification, parent)

        child.make("Zoo", ["name": "Artis"])
        try child.existingObject(with: existing.objectID).setValue("Bronx Zoo", forKey: "name")
        try child.save()
        // Before any processPendingChanges() of the parent's own: the notification and the controller.
        #expect(changes.notes.count == 1)
        let info = try #require(changes.notes.first?.userInfo)
        #expect((info[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.map { $0.string("name") } == ["Artis"])
        #expect((info[NSUpdatedObjectsKey] as? Set<NSManagedObject>) == [existing])
        #expect(controller.fetchedObjects?.map { $0.string("name") } == ["Artis", "Bronx Zoo"])
        #expect(recorder.changes.contains { $0.type == .insert && $0.newIndexPath == IndexPath(item: 0, section: 0) })
        #expect(recorder.changes.contains { $0.type == .update || $0.type == .move })
    }

    @Test func uniquingHoldsInAChildAcrossItsParentsSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(RelationshipModel.make())
        let parent = container.viewContext
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        let order = child.make("Classification", ["order": "Primates"])
        let capuchin = child.make("Animal", ["commonName": "Capuchin", "classification": order])
        let gorilla = child.make("Animal", ["commonName": "Gorilla", "classification": order])
        try child.save()
        try parent.save()

        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
        let fetched = try child.fetch(request)
        #expect(fetched.count == 2)
        #expect(fetched[0] === capuchin && fetched[1] === gorilla)
        #expect(!capuchin.objectID.isTemporaryID && capuchin.objectID == parent.registeredObjects.first { $0.entity.name == "Animal" && $0.string("commonName") == "Capuchin" }?.objectID)
        // References between them follow: one object per row, from either side.
        #expect(capuchin.value(forKey: "classification") as? NSManagedObject === order)
        #expect(order.set("animals") == [capuchin, gorilla])
        let byObject = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        byObject.predicate = NSPredicate(format: "self IN %@", [gorilla])
        #expect(try child.fetch(byObject).map { $0 } == [gorilla])
        let byRelationship = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        byRelationship.predicate = NSPredicate(format: "classification == %@", order)
        #expect(Set(try child.fetch(byRelationship)) == [capuchin, gorilla])
        // A later edit in the child saves through both contexts to the same row.
        gorilla.setValue("Western gorilla", forKey: "commonName")
        try child.save()
        try parent.save()
        let names = try store.container(RelationshipModel.make()).viewContext.fetch(request).map { $0.string("commonName") }
        #expect(names == ["Capuchin", "Western gorilla"])
    }

    @Test func aRequiredToManyWithNoMinimumCountMayBeEmpty() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let model = RelationshipModel.make()
        model.entitiesByName["Zoo"]!.relationshipsByName["animals"]!.isOptional = false
        let context = try store.container(model).viewContext
        let zoo = context.make("Zoo", ["name": "Empty"])
        try context.save()
        #expect(zoo.set("animals").isEmpty)
        // The minimum count still holds where one is set (on an optional relationship, only when it is not
        // empty, as Apple documents for minCount).
        let model2 = RelationshipModel.make()
        model2.entitiesByName["Zoo"]!.relationshipsByName["animals"]!.minCount = 1
        model2.entitiesByName["Zoo"]!.relationshipsByName["animals"]!.isOptional = false
        let store2 = TemporaryStore()
        defer { store2.cleanUp() }
        let context2 = try store2.container(model2).viewContext
        context2.make("Zoo", ["name": "Empty"])
        #expect { try context2.save() } throws: { ($0 as NSError).code == NSValidationRelationshipLacksMinimumCountError }
    }

    @Test func anInvalidModelIsReportedByLoadPersistentStores() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let bad = NSEntityDescription(name: "Item", properties: [NSAttributeDescription(name: "first name", type: .stringAttributeType)])
        let container = NSPersistentContainer(name: "Bad", managedObjectModel: NSManagedObjectModel(entities: [bad]))
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: store.url)]
        var reported: [NSError] = []
        container.loadPersistentStores { _, error in if let error { reported.append(error as NSError) } }
        #expect(reported.count == 1)
        #expect(reported.first?.domain == NSCocoaErrorDomain)
        #expect("\(reported.first.map { $0 } as Any)".contains("entity Item") && "\(reported.first.map { $0 } as Any)".contains("first name"))
        #expect(!FileManager.default.fileExists(atPath: store.url.path))
        // The coordinator says the same to a store added by hand.
        #expect(throws: (any Error).self) {
            try container.persistentStoreCoordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store.url)
        }
    }

    @Test func contextsMadeWithApplesConcurrencyTypes() throws {
        let main = NSManagedObjectContext(.mainQueue)
        let background = NSManagedObjectContext(.privateQueue)
        #expect(main.concurrencyType == .mainQueueConcurrencyType)
        #expect(background.concurrencyType == .privateQueueConcurrencyType)
        let legacy: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType
        #expect(NSManagedObjectContext(concurrencyType: legacy).concurrencyType.rawValue == 1)
        #expect(main.queue.label == DispatchQueue.main.label && background.queue.label != DispatchQueue.main.label)
        #expect(NSManagedObjectContext.ConcurrencyType.mainQueue != .privateQueue)
    }

    @Test func mergesAndStoreChangesPostTheirNotifications() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let view = container.viewContext
        let kept = SeedModel.insertProducts(view, count: 2)
        try view.save()
        let background = container.newBackgroundContext()
        let merged = Counter(.NSManagedObjectContextDidMergeChangesObjectIDs, view)
        let changedID = kept[0].objectID
        let note = Counter(.NSManagedObjectContextDidSaveObjectIDs, background)
        try background.performAndWait {
            try background.existingObject(with: changedID).setValue("renamed", forKey: "name")
            SeedModel.insertProducts(background, count: 1, seed: 7)
            try background.save()
        }
        let saved = try #require(note.notes.first)
        view.mergeChanges(fromContextDidSave: saved)
        let info = try #require(merged.notes.first?.userInfo)
        #expect((info[NSManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue] as? Set<NSManagedObjectID>) == [changedID])
        #expect((info[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>)?.count == 1)
        #expect((info[NSRefreshedObjectIDsKey] as? Set<NSManagedObjectID>) == [changedID])
        #expect(NSManagedObjectContext.NotificationKey.insertedObjects.rawValue == NSInsertedObjectsKey)

        let coordinator = container.persistentStoreCoordinator
        let willRemove = Counter(.NSPersistentStoreCoordinatorWillRemoveStore, coordinator.persistentStores[0])
        let didChange = Counter(.NSPersistentStoreCoordinatorStoresDidChange, coordinator)
        let removed = coordinator.persistentStores[0]
        try coordinator.remove(removed)
        #expect(willRemove.notes.count == 1)
        #expect((didChange.notes.first?.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore])?.first === removed)
        #expect(throws: (any Error).self) { try coordinator.remove(removed) }
        let added = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store.url)
        #expect((didChange.notes.last?.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore])?.first === added)
    }

    @Test func deletesPropagateAtSaveWhenNotAtTheEndOfEachEvent() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(RelationshipModel.make()).viewContext
        let owner = context.make("Owner", ["name": "Ann"])
        let pet = context.make("Pet", ["name": "Rex", "owner": owner])
        try context.save()
        context.propagatesDeletesAtEndOfEvent = false
        context.delete(owner)
        context.processPendingChanges()
        #expect(!pet.isDeleted && pet.value(forKey: "owner") as? NSManagedObject === owner)
        try context.save()
        #expect(pet.managedObjectContext == nil)  // cascaded at the save, and saved: gone from the context
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Pet")) == 0)
        context.userInfo["key"] = "value"
        #expect(context.userInfo["key"] as? String == "value")
    }

    @Test func twoModelsLoadedFromOneFileAreEqual() throws {
        let url = try #require(Bundle.module.url(forResource: "Zoo", withExtension: "xcdatamodeld"))
        let a = try NSManagedObjectModel(validatingContentsOf: url)
        let b = try NSManagedObjectModel(validatingContentsOf: url)
        #expect(a !== b)
        #expect(a.isEqual(b) && a == b && a.hash == b.hash)
        let changed = try NSManagedObjectModel(validatingContentsOf: url)
        changed.entitiesByName["Zoo"]!.properties.append(NSAttributeDescription(name: "city", type: .stringAttributeType))
        #expect(!a.isEqual(changed) && a != changed)
        #expect(!a.isEqual("a model"))
    }
}

/// Records a controller's object changes.
final class ChangeRecorder: NSFetchedResultsControllerDelegate, @unchecked Sendable {
    struct Change { let type: NSFetchedResultsChangeType; let indexPath: IndexPath?; let newIndexPath: IndexPath? }
    private(set) var changes: [Change] = []
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        changes.append(Change(type: type, indexPath: indexPath, newIndexPath: newIndexPath))
    }
}

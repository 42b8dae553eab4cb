import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Relationship changes travel like attribute changes: notifications, merges, parent and child, refresh,
/// conflicts.
@Suite("Relationships: merges, parents, refresh, conflicts") struct RelationshipMergeTests {
    /// A store with Primates (Capuchin, Gorilla) and Carnivora (no animals), and a zoo with the Capuchin.
    func seeded() throws -> (TemporaryStore, NSPersistentContainer) {
        let store = TemporaryStore()
        let container = try store.container(RelationshipModel.make())
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let primates = context.make("Classification", ["order": "Primates"])
            context.make("Classification", ["order": "Carnivora"])
            let capuchin = context.make("Animal", ["commonName": "Capuchin", "classification": primates])
            context.make("Animal", ["commonName": "Gorilla", "classification": primates])
            context.make("Zoo", ["name": "Bronx"]).mutableSetValue(forKey: "animals").add(capuchin)
            try context.save()
        }
        return (store, container)
    }

    func one(_ context: NSManagedObjectContext, _ entity: String, _ key: String, _ value: String) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: "%K == %@", key, value)
        return try #require(try context.fetch(request).first)
    }

    @Test func aMergedSaveMovesBothSides() throws {
        let (store, container) = try seeded()
        defer { store.cleanUp() }
        let view = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        view.persistentStoreCoordinator = container.persistentStoreCoordinator
        view.automaticallyMergesChangesFromParent = true
        let box = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: view, queue: nil) { box.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let objects: [NSManagedObject] = try view.performAndWait {
            let objects = [try one(view, "Animal", "commonName", "Capuchin"), try one(view, "Classification", "order", "Primates"),
                           try one(view, "Classification", "order", "Carnivora"), try one(view, "Zoo", "name", "Bronx")]
            #expect(objects[1].set("animals").count == 2 && objects[2].set("animals").isEmpty && objects[3].set("animals") == [objects[0]])
            return objects
        }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let a = try one(background, "Animal", "commonName", "Capuchin")
            a.setValue(try one(background, "Classification", "order", "Carnivora"), forKey: "classification")
            a.mutableSetValue(forKey: "zoos").removeAllObjects()
            try background.save()
        }
        // The merge was queued on the view context's queue before this block.
        view.performAndWait {
            let (capuchin, primates, carnivora, bronx) = (objects[0], objects[1], objects[2], objects[3])
            #expect((capuchin.value(forKey: "classification") as? NSManagedObject) === carnivora)
            #expect(carnivora.set("animals") == [capuchin])
            #expect(primates.set("animals").map { $0.string("commonName") } == ["Gorilla"])
            #expect(bronx.set("animals").isEmpty)
        }
        let updated = box.notes.compactMap { $0.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> }.reduce(into: Set()) { $0.formUnion($1) }
        #expect(updated.isSuperset(of: Set(objects)))
    }

    /// The receiving context cleared the animal's classification (unsaved); another context moved the
    /// animal to Carnivora and saved. The local change wins in memory, on both sides.
    @Test func aMergeKeepsBothSidesOfAnUnsavedLocalChange() throws {
        let (store, container) = try seeded()
        defer { store.cleanUp() }
        let view = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        view.persistentStoreCoordinator = container.persistentStoreCoordinator
        let box = NotificationInbox()
        let background = container.newBackgroundContext()
        let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: background, queue: nil) { box.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let (capuchin, primates, carnivora): (NSManagedObject, NSManagedObject, NSManagedObject) = try view.performAndWait {
            let a = try one(view, "Animal", "commonName", "Capuchin")
            let p = try one(view, "Classification", "order", "Primates"), c = try one(view, "Classification", "order", "Carnivora")
            _ = (p.set("animals"), c.set("animals"))
            a.setValue(nil, forKey: "classification")
            return (a, p, c)
        }
        try background.performAndWait {
            let a = try one(background, "Animal", "commonName", "Capuchin")
            a.setValue(try one(background, "Classification", "order", "Carnivora"), forKey: "classification")
            try background.save()
        }
        view.performAndWait {
            for note in box.notes { view.mergeChanges(fromContextDidSave: note) }
            #expect(capuchin.value(forKey: "classification") == nil)
            #expect(!carnivora.set("animals").contains(capuchin))
            #expect(!primates.set("animals").contains(capuchin))
        }
    }

    @Test func childSavesRelationshipsIntoItsParent() throws {
        let (store, container) = try seeded()
        defer { store.cleanUp() }
        let parent = container.viewContext
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            let carnivora = try one(child, "Classification", "order", "Carnivora")
            let lion = child.make("Animal", ["commonName": "Lion", "classification": carnivora])
            let zoo = child.make("Zoo", ["name": "Berlin"])
            zoo.mutableSetValue(forKey: "animals").add(lion)
            try child.save()
        }
        let lion = try one(parent, "Animal", "commonName", "Lion")
        let carnivora = try one(parent, "Classification", "order", "Carnivora")
        #expect((lion.value(forKey: "classification") as? NSManagedObject) === carnivora)
        #expect(carnivora.set("animals") == [lion])
        #expect(lion.set("zoos").map { $0.string("name") } == ["Berlin"])
        try parent.save()
        let reopened = try store.container(RelationshipModel.make()).viewContext
        let berlin = try one(reopened, "Zoo", "name", "Berlin")
        #expect(berlin.set("animals").map { $0.string("commonName") } == ["Lion"])
        #expect(try one(reopened, "Classification", "order", "Carnivora").set("animals").map { $0.string("commonName") } == ["Lion"])
    }

    @Test func aChildSeesItsParentsUnsavedGraph() throws {
        let (store, container) = try seeded()
        defer { store.cleanUp() }
        let parent = container.viewContext
        let primates = try one(parent, "Classification", "order", "Primates")
        let tamarin = parent.make("Animal", ["commonName": "Tamarin", "classification": primates])
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        let names: [String] = child.performAndWait {
            let p = child.object(with: primates.objectID)
            return p.set("animals").compactMap { $0.string("commonName") }.sorted()
        }
        #expect(names == ["Capuchin", "Gorilla", "Tamarin"])
        _ = tamarin
    }

    @Test func refreshRereadsRelationships() throws {
        let (store, container) = try seeded()
        defer { store.cleanUp() }
        let view = container.viewContext
        let primates = try one(view, "Classification", "order", "Primates")
        #expect(primates.set("animals").count == 2)
        let background = container.newBackgroundContext()
        try background.performAndWait {
            background.delete(try one(background, "Animal", "commonName", "Gorilla"))
            try background.save()
        }
        view.refresh(primates, mergeChanges: false)
        #expect(primates.set("animals").map { $0.string("commonName") } == ["Capuchin"])
    }

    @Test(arguments: [NSMergePolicyType.errorMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType,
                      .overwriteMergePolicyType, .rollbackMergePolicyType])
    func conflictingReassignments(_ type: NSMergePolicyType) throws {
        let (store, container) = try seeded()
        defer { store.cleanUp() }
        let mine = container.newBackgroundContext(), theirs = container.newBackgroundContext()
        mine.mergePolicy = NSMergePolicy(merge: type)
        let (capuchin, _): (NSManagedObject, NSManagedObject) = try mine.performAndWait {
            let a = try one(mine, "Animal", "commonName", "Capuchin")
            _ = a.value(forKey: "classification")
            return (a, try one(mine, "Classification", "order", "Carnivora"))
        }
        try theirs.performAndWait {
            let a = try one(theirs, "Animal", "commonName", "Capuchin")
            a.setValue(nil, forKey: "classification")
            a.setValue("theirs", forKey: "habitat")
            try theirs.save()
        }
        let outcome: Result<Void, Error> = mine.performAndWait {
            capuchin.setValue(try? one(mine, "Classification", "order", "Carnivora"), forKey: "classification")
            return Result { try mine.save() }
        }
        let reopened = try store.container(RelationshipModel.make()).viewContext
        let stored = try one(reopened, "Animal", "commonName", "Capuchin")
        let order = (stored.value(forKey: "classification") as? NSManagedObject)?.string("order")
        let carnivora = try one(reopened, "Classification", "order", "Carnivora").set("animals").compactMap { $0.string("commonName") }
        let primates = try one(reopened, "Classification", "order", "Primates").set("animals").compactMap { $0.string("commonName") }
        switch type {
        case .errorMergePolicyType:
            #expect(throws: (any Error).self) { try outcome.get() }
            #expect(order == nil)
        case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType:
            try outcome.get()
            #expect(order == "Carnivora")
            #expect(carnivora == ["Capuchin"])
        case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType:
            try outcome.get()
            #expect(order == nil)
            #expect(carnivora.isEmpty)
        }
        // Both sides agree in the store, whoever won.
        #expect(primates == ["Gorilla"])
        #expect(stored.string("habitat") == (type == .overwriteMergePolicyType ? nil : "theirs"))
    }
}

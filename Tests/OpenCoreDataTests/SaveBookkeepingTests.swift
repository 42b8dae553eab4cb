import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// The shortcuts a large save takes (Benchmarks, figure 6) keep Core Data's behaviour: the set of
/// inserted objects `ObjectsDidChange` announced is posted again by `DidSave` only when it is still the
/// set saved; the table of temporary keys is dropped at once only when the saved objects are all it
/// holds; an insert not yet announced is told apart by a flag on the object, not by a lookup.
@Suite("Save bookkeeping")
struct SaveBookkeepingTests {
    /// Observes one context's `ObjectsDidChange` and `DidSave`, keeping the objects under a key.
    final class Recorder {
        let changes = NotificationInbox(), saves = NotificationInbox()
        private var observers: [NSObjectProtocol] = []
        init(_ context: NSManagedObjectContext) {
            let center = NotificationCenter.default
            observers.append(center.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil) { [changes] in changes.append($0) })
            observers.append(center.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: context, queue: nil) { [saves] in saves.append($0) })
        }
        deinit { observers.forEach(NotificationCenter.default.removeObserver) }

        static func objects(_ note: Notification?, _ key: String) -> Set<ObjectIdentifier> {
            Set(((note?.userInfo?[key] as? Set<NSManagedObject>) ?? []).map(ObjectIdentifier.init))
        }
        var lastSaveInserted: Set<ObjectIdentifier> { Self.objects(saves.notes.last, NSInsertedObjectsKey) }
        var lastChange: Notification? { changes.notes.last }
    }

    private func ids(_ objects: [NSManagedObject]) -> Set<ObjectIdentifier> { Set(objects.map(ObjectIdentifier.init)) }

    @Test func didSaveCarriesExactlyTheSavedInserts() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let recorder = Recorder(context)

        // All inserts announced by the save itself: the announced set is the saved one.
        let first = insertProducts(context, count: 5)
        try context.save()
        #expect(recorder.lastSaveInserted == ids(first))
        #expect(Recorder.objects(recorder.lastChange, NSInsertedObjectsKey) == ids(first))

        // Some inserts announced earlier: the save's announcement holds only the later ones.
        let early = insertProducts(context, count: 2, seed: 1)
        context.processPendingChanges()
        let late = insertProducts(context, count: 3, seed: 2)
        try context.save()
        #expect(recorder.lastSaveInserted == ids(early + late))

        // Announced earlier, then one deleted and another inserted: as many objects, other ones.
        let a = insertProducts(context, count: 2, seed: 3)
        context.processPendingChanges()
        context.delete(a[0])
        let b = insertProducts(context, count: 1, seed: 4)
        try context.save()
        #expect(recorder.lastSaveInserted == ids([a[1]] + b))

        // An insert deleted again before the announcement is neither announced nor saved.
        let c = insertProducts(context, count: 3, seed: 5)
        context.delete(c[1])
        try context.save()
        #expect(Recorder.objects(recorder.lastChange, NSInsertedObjectsKey) == ids([c[0], c[2]]))
        #expect(Recorder.objects(recorder.lastChange, NSDeletedObjectsKey).isEmpty)
        #expect(recorder.lastSaveInserted == ids([c[0], c[2]]))
        #expect(!c[1].isInserted)
    }

    @Test func anInsertDuringWillSaveIsSavedAndPosted() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let recorder = Recorder(context)
        let first = insertProducts(context, count: 3)
        final class Added: @unchecked Sendable { var objects: [Products] = [] }
        let box = Added()
        let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.willSaveObjectsNotification, object: context, queue: nil) { _ in
            if box.objects.isEmpty { box.objects = insertProducts(context, count: 1, seed: 9) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.save()
        let added = box.objects
        #expect(added.count == 1)
        #expect(recorder.lastSaveInserted == ids(first + added))
        #expect(!added[0].objectID.isTemporaryID)
    }

    @Test func anInsertAnnouncedThenChangedIsAnUpdateOfTheNextAnnouncement() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let recorder = Recorder(context)
        let product = insertProducts(context, count: 1)[0]
        product.price = 1  // before the announcement: part of the insert
        context.processPendingChanges()
        #expect(Recorder.objects(recorder.lastChange, NSUpdatedObjectsKey).isEmpty)
        #expect(Recorder.objects(recorder.lastChange, NSInsertedObjectsKey) == ids([product]))
        product.price = 2  // after: an update of an inserted object
        context.processPendingChanges()
        #expect(Recorder.objects(recorder.lastChange, NSUpdatedObjectsKey) == ids([product]))
        #expect(Recorder.objects(recorder.lastChange, NSInsertedObjectsKey).isEmpty)

        // Inserted, deleted and inserted again before an announcement: one insert.
        let again = Products(context: context)
        context.delete(again)
        context.insert(again)
        again.price = 3
        context.processPendingChanges()
        #expect(Recorder.objects(recorder.lastChange, NSInsertedObjectsKey) == ids([again]))
        #expect(Recorder.objects(recorder.lastChange, NSUpdatedObjectsKey).isEmpty)
        #expect(Recorder.objects(recorder.lastChange, NSDeletedObjectsKey).isEmpty)

        // Rolled back before an announcement: nothing announced, and the object may be inserted anew.
        let rolledBack = Products(context: context)
        let count = recorder.changes.notes.count
        context.rollback()
        context.processPendingChanges()
        #expect(recorder.changes.notes.count == count)
        context.insert(rolledBack)
        context.processPendingChanges()
        #expect(Recorder.objects(recorder.lastChange, NSInsertedObjectsKey) == ids([rolledBack]))
    }

    @Test func temporaryKeysOfOtherObjectsStayRegisteredAfterASave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let other = container.newBackgroundContext()
        let context = container.newBackgroundContext()
        let elsewhere = other.performAndWait { insertProducts(other, count: 1)[0].objectID }
        try context.performAndWait {
            // A fault for another context's unsaved object is registered under its temporary key.
            let fault = context.object(with: elsewhere)
            let saved = insertProducts(context, count: 4)
            let temporary = saved.map(\.objectID)
            try context.save()
            #expect(context.registeredObject(for: elsewhere) === fault)
            for (object, old) in zip(saved, temporary) {
                #expect(!object.objectID.isTemporaryID)
                #expect(context.registeredObject(for: object.objectID) === object)
                #expect(context.registeredObject(for: old) == nil)
            }
            #expect(context.registeredObjects.count == 5)
        }
    }

    @Test func savedObjectsTakeTheirStoreKeysInTheRegistry() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().newBackgroundContext()
        try context.performAndWait {
            // Only the saved objects hold temporary keys: that table is dropped at once.
            let saved = insertProducts(context, count: 6)
            let temporary = saved.map(\.objectID)
            try context.obtainPermanentIDs(for: [saved[2]])  // one already permanent
            try context.save()
            for (object, old) in zip(saved, temporary) {
                #expect(!object.objectID.isTemporaryID)
                #expect(context.registeredObject(for: object.objectID) === object)
                #expect(context.registeredObject(for: old) == nil)
                #expect(context.object(with: object.objectID) === object)
            }
            #expect(context.registeredObjects.count == 6)
            let fetched = try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
            #expect(Set(fetched.map(ObjectIdentifier.init)) == Set(saved.map(ObjectIdentifier.init)))
        }
    }

    /// A new object gets its temporary key when its context registers it, and its temporary ID only when
    /// asked for (an import makes none): the ID made later carries that key, so it finds the object,
    /// stays the same object, and differs from every other object's.
    @Test func aTemporaryIDMadeLateNamesItsObject() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().newBackgroundContext()
        try context.performAndWait {
            let objects = insertProducts(context, count: 3)
            let ids = objects.map(\.objectID)
            #expect(Set(ids).count == 3)
            for (object, id) in zip(objects, ids) {
                #expect(id.isTemporaryID)
                #expect(object.objectID === id)
                #expect(context.registeredObject(for: id) === object)
                #expect(context.object(with: id) === object)
            }
            // Saved without its temporary ID ever made: registered (before it has a key, as an inserted
            // object) and then under its store key only.
            let unseen = insertProducts(context, count: 1)[0]
            let dropped = insertProducts(context, count: 1)[0]
            #expect(unseen.assignedKey == nil && dropped.assignedKey == nil)
            #expect(context.registeredObjects.count == 5)
            context.delete(dropped)
            #expect(context.registeredObjects.count == 4)
            try context.save()
            #expect(!unseen.objectID.isTemporaryID)
            #expect(context.registeredObject(for: unseen.objectID) === unseen)
            #expect(context.registeredObjects.count == 4)
            for id in ids { #expect(context.registeredObject(for: id) == nil) }
        }
    }

    // Apple, willSave(): "If you change property values using standard accessor methods, Core Data will
    // observe the resultant change notification and so invoke willSave again before saving the object's
    // managed object context."
    /// A store of one entity `name` (an integer `n`) whose objects are of class `objectClass`.
    static func oneEntity(_ name: String, _ objectClass: NSManagedObject.Type, _ store: TemporaryStore) throws -> (NSEntityDescription, NSPersistentContainer) {
        let entity = NSEntityDescription(name: name, managedObjectClassName: NSStringFromClass(objectClass), properties: [
            NSAttributeDescription(name: "n", type: .integer64AttributeType, optional: false, defaultValue: 0),
        ])
        return (entity, try store.container(NSManagedObjectModel(entities: [entity])))
    }

    @Test func changesMadeByWillSaveArePartOfTheSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (entity, container) = try Self.oneEntity("Spawner", Spawner.self, store)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let first = Spawner(entity: entity, insertInto: context)
            let victim = Spawner(entity: entity, insertInto: context)
            first.victim = victim
            try context.save()
            #expect(!first.objectID.isTemporaryID && !first.isInserted)
            #expect(context.insertedObjects.isEmpty && !context.hasChanges)
            // The spawned object was saved too (its own willSave() ran, and changed nothing); the victim,
            // deleted by willSave() before it was written, never reached the store.
            #expect(!victim.isInserted && victim.objectID.isTemporaryID)
            let saved = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Spawner"))
            #expect(saved.count == 2 && saved.contains(first) && !saved.contains(victim))
            #expect(saved.allSatisfy { !$0.objectID.isTemporaryID })
        }
        let other = container.newBackgroundContext()
        let count = try other.performAndWait { try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "Spawner")) }
        #expect(count == 2)
    }

    @Test func aChildContextSavesWhatWillSaveChanged() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (entity, container) = try Self.oneEntity("Spawner", Spawner.self, store)
        let parent = container.newBackgroundContext()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            let first = Spawner(entity: entity, insertInto: child)
            first.victim = Spawner(entity: entity, insertInto: child)
            try child.save()
            #expect(!child.hasChanges)
        }
        // The first object and the one its willSave() inserted reach the parent; the one it deleted does not.
        try parent.performAndWait {
            #expect(parent.insertedObjects.count == 2)
            try parent.save()
        }
        let count = try parent.performAndWait { try parent.count(for: NSFetchRequest<NSManagedObject>(entityName: "Spawner")) }
        #expect(count == 2)
    }

    @Test func willSaveRunsAgainAfterItChangesAValueAndAnEndlessOneFailsTheSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (entity, container) = try Self.oneEntity("Stamped", Stamped.self, store)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            // Sets n to 7 once: called again after that change, then the save goes on.
            let stamped = Stamped(entity: entity, insertInto: context)
            try context.save()
            #expect(stamped.calls == 2 && stamped.value(forKey: "n") as? Int == 7)
            // Increments n every time: the save gives up after `willSaveRounds` rounds and writes nothing.
            stamped.endless = true
            stamped.setValue(8, forKey: "n")
            #expect { try context.save() } throws: { "\($0)".contains("willSave() changed objects in \(NSManagedObjectContext.willSaveRounds) rounds") }
        }
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let rows = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Stamped"))
            #expect(rows.map { $0.value(forKey: "n") as? Int } == [7])
        }
    }
}

/// An object whose `willSave()` inserts another object and deletes an inserted one: both changes are part
/// of the save.
final class Spawner: NSManagedObject {
    nonisolated(unsafe) var victim: NSManagedObject?
    override func willSave() {
        guard let context = managedObjectContext, let victim else { return }
        self.victim = nil
        context.delete(victim)
        _ = Spawner(entity: entity, insertInto: context)
    }
}

/// An object whose `willSave()` sets `n` to 7 when it differs (a "last modified" stamp done right), or,
/// when `endless`, increments it every time.
final class Stamped: NSManagedObject {
    nonisolated(unsafe) var calls = 0
    nonisolated(unsafe) var endless = false
    override func willSave() {
        calls += 1
        let n = value(forKey: "n") as? Int ?? 0
        if endless { setValue(n + 1, forKey: "n") } else if n != 7 { setValue(7, forKey: "n") }
    }
}

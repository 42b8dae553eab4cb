import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A context's undo manager: its inserts, updates, deletes and relationship changes undone and redone,
/// one group per event, as Core Data records them.
@Suite("Context undo")
struct UndoTests {
    /// A context on a fresh store of the relationship model, with an undo manager.
    final class Stack {
        let store = TemporaryStore()
        let context: NSManagedObjectContext
        let manager = UndoManager()
        init() throws {
            context = try store.container(RelationshipModel.make()).viewContext
            context.undoManager = manager
        }
        deinit { store.cleanUp() }
    }

    @Test func aContextHasNoUndoManagerByDefault() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(RelationshipModel.make()).viewContext
        #expect(context.undoManager == nil)
        let zoo = context.make("Zoo", ["name": "Bronx"])
        context.undo()  // nothing to undo with: nothing happens
        #expect(zoo.isInserted)
        let manager = UndoManager()
        context.undoManager = manager
        #expect(context.undoManager === manager)
    }

    @Test func anUndoneInsertLeavesTheContextAndARedoBringsItBack() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        s.context.processPendingChanges()
        #expect(s.manager.canUndo)
        s.context.undo()
        #expect(!zoo.isInserted)
        #expect(s.context.insertedObjects.isEmpty)
        #expect(!s.context.hasChanges)
        #expect(try s.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Zoo")) == 0)
        s.context.redo()
        #expect(zoo.isInserted)
        #expect(s.context.insertedObjects == [zoo])
        #expect(zoo.string("name") == "Bronx")
        try s.context.save()
        #expect(try s.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Zoo")) == 1)
    }

    @Test func anUndoneUpdateRestoresTheValueAndTheChangeState() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        try s.context.save()
        zoo.setValue("San Diego", forKey: "name")
        #expect(zoo.isUpdated)
        s.context.undo()
        #expect(zoo.string("name") == "Bronx")
        // Back to the saved value: not updated any more.
        #expect(!zoo.hasChanges)
        #expect(!s.context.hasChanges)
        #expect(s.context.updatedObjects.isEmpty)
        s.context.redo()
        #expect(zoo.string("name") == "San Diego")
        #expect(s.context.updatedObjects == [zoo])
    }

    @Test func anUndoneDeleteBringsBackTheObjectWithItsRelationships() throws {
        let s = try Stack()
        let cats = s.context.make("Classification", ["order": "Carnivora"])
        let lion = s.context.make("Animal", ["commonName": "Lion", "classification": cats])
        let bronx = s.context.make("Zoo", ["name": "Bronx"])
        lion.mutableSetValue(forKey: "zoos").add(bronx)
        try s.context.save()
        s.context.delete(lion)
        s.context.processPendingChanges()  // the delete rule (nullify) ran
        #expect(cats.set("animals").isEmpty)
        #expect(bronx.set("animals").isEmpty)
        s.context.undo()
        #expect(!lion.isDeleted)
        #expect(s.context.deletedObjects.isEmpty)
        #expect(cats.set("animals") == [lion])
        #expect(bronx.set("animals") == [lion])
        #expect(lion.string("commonName") == "Lion")
        #expect((lion.value(forKey: "classification") as? NSManagedObject) === cats)
        #expect(!s.context.hasChanges)
        s.context.redo()
        #expect(lion.isDeleted)
        #expect(cats.set("animals").isEmpty)
        try s.context.save()
        #expect(try s.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Animal")) == 0)
    }

    @Test func aCascadeIsUndoneWithTheDeleteThatCausedIt() throws {
        let s = try Stack()
        let owner = s.context.make("Owner", ["name": "Ann"])
        let pet = s.context.make("Pet", ["name": "Rex", "owner": owner])
        try s.context.save()
        s.context.delete(owner)
        s.context.processPendingChanges()
        #expect(pet.isDeleted)
        s.context.undo()
        #expect(!pet.isDeleted && !owner.isDeleted)
        #expect(owner.set("pets") == [pet])
        #expect(!s.context.hasChanges)
    }

    @Test func toOneChangesAreUndoneOnBothSides() throws {
        let s = try Stack()
        let cats = s.context.make("Classification", ["order": "Carnivora"])
        let apes = s.context.make("Classification", ["order": "Primates"])
        let lion = s.context.make("Animal", ["commonName": "Lion", "classification": cats])
        try s.context.save()
        lion.setValue(apes, forKey: "classification")
        #expect(apes.set("animals") == [lion])
        s.context.undo()
        #expect((lion.value(forKey: "classification") as? NSManagedObject) === cats)
        #expect(cats.set("animals") == [lion])
        #expect(apes.set("animals").isEmpty)
        #expect(!s.context.hasChanges)
        s.context.redo()
        #expect((lion.value(forKey: "classification") as? NSManagedObject) === apes)
        #expect(cats.set("animals").isEmpty)
        #expect(apes.set("animals") == [lion])
    }

    @Test func toManyChangesAreUndoneOnBothSides() throws {
        let s = try Stack()
        let lion = s.context.make("Animal", ["commonName": "Lion"])
        let bronx = s.context.make("Zoo", ["name": "Bronx"]), sd = s.context.make("Zoo", ["name": "San Diego"])
        lion.mutableSetValue(forKey: "zoos").add(bronx)
        try s.context.save()
        lion.mutableSetValue(forKey: "zoos").add(sd)
        bronx.mutableSetValue(forKey: "animals").remove(lion)
        s.context.undo()
        #expect(lion.set("zoos") == [bronx])
        #expect(bronx.set("animals") == [lion])
        #expect(sd.set("animals").isEmpty)
        #expect(!s.context.hasChanges)
        s.context.redo()
        #expect(lion.set("zoos") == [sd])
        #expect(bronx.set("animals").isEmpty)
        #expect(sd.set("animals") == [lion])
    }

    @Test func orderedToManyChangesAreUndoneInOrder() throws {
        let s = try Stack()
        let mix = s.context.make("Playlist", ["title": "Mix"])
        let songs = ["a", "b", "c"].map { s.context.make("Song", ["title": $0]) }
        mix.setValue(NSOrderedSet(array: songs), forKey: "songs")
        try s.context.save()
        let titles = { (mix.value(forKey: "songs") as! NSOrderedSet).array.map { ($0 as! NSManagedObject).string("title")! } }
        mix.setValue(NSOrderedSet(array: [songs[2], songs[0]]), forKey: "songs")
        #expect(titles() == ["c", "a"])
        #expect(songs[1].value(forKey: "playlist") == nil)
        s.context.undo()
        #expect(titles() == ["a", "b", "c"])
        #expect((songs[1].value(forKey: "playlist") as? NSManagedObject) === mix)
        #expect(!s.context.hasChanges)
        s.context.redo()
        #expect(titles() == ["c", "a"])
    }

    @Test func theEditsOfOneEventAreUndoneTogether() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        try s.context.save()
        s.manager.removeAllActions()
        // One event: two edits and an insert.
        zoo.setValue("B", forKey: "name")
        zoo.setValue("C", forKey: "name")
        let other = s.context.make("Zoo", ["name": "Other"])
        s.context.processPendingChanges()
        // The next event.
        zoo.setValue("D", forKey: "name")
        s.context.processPendingChanges()
        s.context.undo()
        #expect(zoo.string("name") == "C")
        #expect(other.isInserted)
        s.context.undo()
        #expect(zoo.string("name") == "Bronx")
        #expect(!other.isInserted)
        #expect(!s.manager.canUndo)
        s.context.redo()
        #expect(zoo.string("name") == "C")
        #expect(other.isInserted)
    }

    @Test func eventsGroupWithTheAppsOwnOperationsAndTakeTheActionName() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        try s.context.save()
        final class Counter { var count = 0 }
        let counter = Counter()
        zoo.setValue("San Diego", forKey: "name")
        s.manager.setActionName("Rename Zoo")
        s.manager.registerUndo(withTarget: counter) { $0.count += 1 }
        s.context.processPendingChanges()
        #expect(s.manager.groupingLevel == 0)
        #expect(s.manager.undoActionName == "Rename Zoo")
        s.context.undo()
        #expect(zoo.string("name") == "Bronx")
        #expect(counter.count == 1)
        #expect(s.manager.redoMenuItemTitle == "Redo Rename Zoo")
    }

    @Test func theUndoManagerAloneUndoesPendingChanges() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        try s.context.save()
        zoo.setValue("San Diego", forKey: "name")
        // No processPendingChanges: the manager's checkpoint records the change first.
        s.manager.undo()
        #expect(zoo.string("name") == "Bronx")
        #expect(s.manager.canRedo)
        zoo.setValue("Queens", forKey: "name")
        // canRedo's checkpoint records the new change, which clears the redo stack.
        #expect(!s.manager.canRedo)
    }

    @Test func undoReachesBackAcrossASave() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        try s.context.save()
        zoo.setValue("San Diego", forKey: "name")
        try s.context.save()
        s.context.undo()
        // The store has San Diego: the object is changed again relative to it.
        #expect(zoo.string("name") == "Bronx")
        #expect(zoo.isUpdated)
        #expect(s.context.hasChanges)
        try s.context.save()
        s.context.undo()  // the insert, saved: the object is deleted from the store at the next save
        #expect(zoo.isDeleted)
        try s.context.save()
        #expect(try s.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Zoo")) == 0)
        s.context.redo()  // inserted again, with its values
        #expect(zoo.isInserted)
        try s.context.save()
        let names = try s.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo")).map { $0.string("name") }
        #expect(names == ["Bronx"])
    }

    @Test func aSavedDeleteIsUndoneWithItsRelationships() throws {
        let s = try Stack()
        let cats = s.context.make("Classification", ["order": "Carnivora"])
        let lion = s.context.make("Animal", ["commonName": "Lion", "classification": cats])
        try s.context.save()
        s.context.delete(lion)
        try s.context.save()
        #expect(lion.managedObjectContext == nil)
        s.context.undo()
        #expect(lion.isInserted)
        #expect(cats.set("animals") == [lion])
        try s.context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        let animals = try s.context.fetch(request)
        #expect(animals.count == 1)
        #expect((animals.first?.value(forKey: "classification") as? NSManagedObject) === cats)
    }

    @Test func levelsOfUndoLimitsTheEventsKept() throws {
        let s = try Stack()
        s.manager.levelsOfUndo = 2
        let zoo = s.context.make("Zoo", ["name": "0"])
        s.context.processPendingChanges()
        for name in ["1", "2", "3"] {
            zoo.setValue(name, forKey: "name")
            s.context.processPendingChanges()
        }
        s.context.undo()
        s.context.undo()
        #expect(zoo.string("name") == "1")
        #expect(!s.manager.canUndo)
        s.context.undo()
        #expect(zoo.string("name") == "1")
    }

    @Test func changesMadeWhileRegistrationIsDisabledAreNotUndone() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        s.context.processPendingChanges()
        s.manager.disableUndoRegistration()
        zoo.setValue("San Diego", forKey: "name")
        s.context.processPendingChanges()
        s.manager.enableUndoRegistration()
        zoo.setValue("Queens", forKey: "name")
        s.context.undo()
        #expect(zoo.string("name") == "San Diego")
        s.context.undo()
        #expect(!zoo.isInserted)
    }

    @Test func rollbackEmptiesTheUndoStackAndResetForgetsTheContextsOperations() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        try s.context.save()
        zoo.setValue("San Diego", forKey: "name")
        s.context.processPendingChanges()
        s.context.rollback()
        #expect(!s.manager.canUndo)
        #expect(zoo.string("name") == "Bronx")
        final class Other {}
        let other = Other()
        s.manager.registerUndo(withTarget: other) { _ in }
        zoo.setValue("Queens", forKey: "name")
        s.context.processPendingChanges()
        s.context.reset()
        // The app's own operation stays; the context's is gone.
        #expect(s.manager.canUndo)
        s.context.undo()
        #expect(!s.manager.canUndo)
    }

    @Test func removingTheUndoManagerStopsRecording() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        s.context.undoManager = nil
        // The change made before was registered with the manager.
        #expect(s.manager.canUndo)
        zoo.setValue("San Diego", forKey: "name")
        s.context.processPendingChanges()
        s.manager.undo()
        #expect(!zoo.isInserted)
        #expect(!s.manager.canUndo)
    }

    @Test func aControllerSeesAnUndoneInsertAsADelete() throws {
        let s = try Stack()
        for name in ["A", "C"] { s.context.make("Zoo", ["name": name]) }
        try s.context.save()
        s.manager.removeAllActions()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Zoo")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let tracked = try makeRecordedTable(request, in: s.context) { $0.string("name") ?? "-" }
        let b = s.context.make("Zoo", ["name": "B"])
        s.context.processPendingChanges()
        #expect(tracked.delegate.calls == ["insert 0/1"])
        s.context.undo()
        #expect(tracked.delegate.calls == ["delete 0/1"])
        #expect(tracked.table.rows == [["A", "C"]])
        s.context.redo()
        #expect(tracked.delegate.calls == ["insert 0/1"])
        #expect(tracked.controller.fetchedObjects?.contains(b) == true)
        // An undone delete comes back as an insert; an undone rename as a move.
        let c = try #require(tracked.controller.fetchedObjects?.last)
        s.context.delete(c)
        s.context.processPendingChanges()
        #expect(tracked.delegate.calls == ["delete 0/2"])
        s.context.undo()
        #expect(tracked.delegate.calls == ["insert 0/2"])
        c.setValue("0", forKey: "name")
        s.context.processPendingChanges()
        s.context.undo()
        #expect(tracked.delegate.calls == ["move 0/0 -> 0/2"])
        #expect(tracked.table.rows == [["A", "B", "C"]])
        #expect(tracked.table.errors.isEmpty)
    }

    @Test func undoPostsObjectsDidChange() throws {
        let s = try Stack()
        let zoo = s.context.make("Zoo", ["name": "Bronx"])
        try s.context.save()
        zoo.setValue("San Diego", forKey: "name")
        s.context.processPendingChanges()
        final class Seen: @unchecked Sendable { var updated: [Set<NSManagedObject>] = [] }
        let seen = Seen()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: s.context, queue: nil) { note in
            seen.updated.append(note.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> ?? [])
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        s.context.undo()
        #expect(seen.updated == [[zoo]])
    }
}

import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A note with Apple-style custom accessors and hooks that record what the framework calls.
final class HookedNote: NSManagedObject {
    @Managed var title: String?
    @Managed var kind: String
    @Managed var tags: NSSet?
    /// Core Data's primitive accessor of `title`, ported from `@NSManaged var primitiveTitle: String?`.
    @Managed var primitiveTitle: String?

    nonisolated(unsafe) static var calls: [String] = []

    /// A custom accessor written Apple's way, through the key-value hooks and the primitive value.
    var heading: String? {
        get {
            willAccessValue(forKey: "title")
            defer { didAccessValue(forKey: "title") }
            return primitiveValue(forKey: "title") as? String
        }
        set {
            willChangeValue(forKey: "title")
            setPrimitiveValue(newValue, forKey: "title")
            didChangeValue(forKey: "title")
        }
    }

    /// The same through the `@Managed` primitive accessor.
    var caption: String? {
        get { willAccessValue(forKey: "title"); defer { didAccessValue(forKey: "title") }; return primitiveTitle }
        set { willChangeValue(forKey: "title"); primitiveTitle = newValue; didChangeValue(forKey: "title") }
    }

    override func willTurnIntoFault() { Self.calls.append("will fault \(title ?? "nil") state \(faultingState)") }
    override func didTurnIntoFault() { Self.calls.append("did fault state \(faultingState)") }
    override func awake(fromSnapshotEvents flags: NSSnapshotEventType) {
        super.awake(fromSnapshotEvents: flags)
        Self.calls.append("awake \(flags.rawValue) \(title ?? "nil")")
    }
    override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        try super.validateValue(value, forKey: key)
        if key == "title", (value.pointee as? String) == "forbidden" { throw NSError(domain: "Notes", code: 7) }
    }
}

/// A note whose class counts changes of unmodeled properties.
final class DirtyingNote: NSManagedObject {
    @Managed var title: String?
    override class var contextShouldIgnoreUnmodeledPropertyChanges: Bool { false }
}

final class HookedTag: NSManagedObject {
    @Managed var name: String?
    @Managed var notes: NSSet?
}

/// A context that refuses to delete inaccessible faults and records what it was asked.
final class CautiousContext: NSManagedObjectContext {
    nonisolated(unsafe) var asked: [NSManagedObjectID] = []
    override func shouldHandleInaccessibleFault(_ fault: NSManagedObject, for oid: NSManagedObjectID,
                                                triggeredByProperty property: NSPropertyDescription?) -> Bool {
        asked.append(oid)
        return false
    }
}

@Suite("Objects: key-value hooks, faulting and snapshot events", .serialized)
struct ObjectHooksTests {
    private static func model() -> NSManagedObjectModel {
        let note = NSEntityDescription(name: "Note", managedObjectClassName: NSStringFromClass(HookedNote.self), properties: [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
            { let a = NSAttributeDescription(name: "kind", type: .stringAttributeType); a.isOptional = false; a.defaultValue = "plain"; return a }(),
        ])
        let dirty = NSEntityDescription(name: "DirtyNote", managedObjectClassName: NSStringFromClass(DirtyingNote.self), properties: [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
        ])
        let tag = NSEntityDescription(name: "Tag", managedObjectClassName: NSStringFromClass(HookedTag.self), properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true),
        ])
        note.properties.append(NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true))
        return NSManagedObjectModel(entities: [note, dirty, tag])
    }

    /// A store with one saved note ("first"), and a second context on it.
    private func setUp(_ store: TemporaryStore) throws -> (NSPersistentContainer, HookedNote) {
        let container = try store.container(Self.model())
        let note = HookedNote(context: container.viewContext)
        note.title = "first"
        try container.viewContext.save()
        HookedNote.calls = []
        return (container, note)
    }

    private func fetchNote(_ context: NSManagedObjectContext) throws -> HookedNote {
        let request = NSFetchRequest<HookedNote>(entityName: "Note")
        request.returnsObjectsAsFaults = true
        return try #require(context.fetch(request).first)
    }

    /// Undo and redo tell the objects they restored which kind of change was undone.
    @Test func undoAwakensObjectsWithUndoEvents() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, note) = try setUp(store)
        let context = container.viewContext
        context.undoManager = UndoManager()
        note.title = "second"
        context.processPendingChanges()
        context.undo()
        #expect(HookedNote.calls == ["awake \(NSSnapshotEventType.undoUpdate.rawValue) first"])
        HookedNote.calls = []
        context.delete(note)
        context.processPendingChanges()
        context.undo()
        #expect(HookedNote.calls == ["awake \(NSSnapshotEventType.undoDeletion.rawValue) first"])
        HookedNote.calls = []
        let inserted = HookedNote(context: context)
        inserted.title = "new"
        context.processPendingChanges()
        context.undo()
        #expect(!inserted.isInserted)
        #expect(HookedNote.calls == ["awake \(NSSnapshotEventType([.undoInsertion, .undoUpdate]).rawValue) nil"], "one call, both kinds")
        HookedNote.calls = []
        context.redo()
        #expect(inserted.isInserted)
        #expect(HookedNote.calls == ["awake \(NSSnapshotEventType([.undoDeletion, .undoUpdate]).rawValue) new"])
    }

    @Test func snapshotEventRawValuesAreApples() {
        #expect(NSSnapshotEventType.undoInsertion.rawValue == 2)
        #expect(NSSnapshotEventType.undoDeletion.rawValue == 4)
        #expect(NSSnapshotEventType.undoUpdate.rawValue == 8)
        #expect(NSSnapshotEventType.rollback.rawValue == 16)
        #expect(NSSnapshotEventType.refresh.rawValue == 32)
        #expect(NSSnapshotEventType.mergePolicy.rawValue == 64)
        #expect(NSSnapshotEventType(rawValue: 48) == [.rollback, .refresh])
        #expect(NSKeyValueSetMutationKind.union.rawValue == 1 && NSKeyValueSetMutationKind.set.rawValue == 4)
        #expect(NSKeyValueSetMutationKind(rawValue: 3) == .intersect && NSKeyValueSetMutationKind(rawValue: 2) == .minus)
    }

    @Test func faultingStateAndTheFaultHooksAroundRefresh() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, _) = try setUp(store)
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let note = try fetchNote(other)
            #expect(note.isFault && note.faultingState != 0)
            note.willAccessValue(forKey: nil)  // fires the fault, as Apple documents
            #expect(!note.isFault && note.faultingState == 0)
            other.refresh(note, mergeChanges: false)
            #expect(note.isFault)
            #expect(HookedNote.calls == ["will fault first state 2", "did fault state 2"])
            // A fault refreshed again does not turn into one again.
            other.refresh(note, mergeChanges: false)
            #expect(HookedNote.calls.count == 2)
            #expect(note.title == "first" && note.faultingState == 0)
        }
    }

    @Test func awakeFromSnapshotEventsAfterRollbackRefreshAndMergePolicy() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, note) = try setUp(store)
        let context = container.viewContext
        note.title = "changed"
        context.rollback()
        #expect(note.title == "first")
        #expect(HookedNote.calls == ["awake 16 first"])

        // refresh with merge: the store's value comes in (another context saved it), the hook follows.
        let other = container.newBackgroundContext()
        try other.performAndWait {
            try fetchNote(other).title = "elsewhere"
            try other.save()
        }
        HookedNote.calls = []
        context.refresh(note, mergeChanges: true)
        #expect(note.title == "elsewhere")
        #expect(HookedNote.calls == ["awake 32 elsewhere"])

        // A conflict the merge policy resolves.
        try other.performAndWait {
            try fetchNote(other).title = "theirs"
            try other.save()
        }
        HookedNote.calls = []
        note.kind = "mine"
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.save()
        #expect(note.kind == "mine" && note.title == "theirs")
        #expect(HookedNote.calls == ["awake 64 theirs"])
    }

    @Test func appleStyleCustomAccessorsRecordChangesAsSetValueDoes() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, _) = try setUp(store)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let note = try fetchNote(context)
            #expect(note.heading == "first" && !note.isFault)  // the getter fired the fault
            nonisolated(unsafe) var announced: Set<NSManagedObject> = []
            let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil) {
                announced = $0.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> ?? []
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            note.heading = "custom"
            #expect(note.isUpdated && context.updatedObjects.contains(note) && context.hasChanges)
            #expect(note.changedValuesForCurrentEvent() as? [String: String] == ["title": "custom"])
            context.processPendingChanges()
            #expect(announced.contains(note))
            #expect(note.changedValuesForCurrentEvent().isEmpty)
            note.kind = "other"
            #expect(note.changedValuesForCurrentEvent() as? [String: String] == ["kind": "other"])
            try context.save()
            // Setting the value it holds records nothing.
            note.heading = "custom"
            #expect(!context.hasChanges)
        }
        let fresh = container.newBackgroundContext()
        let title = try fresh.performAndWait { try fetchNote(fresh).title }
        #expect(title == "custom")
    }

    @Test func primitiveSetsAloneAreNotChanges() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, note) = try setUp(store)
        let context = container.viewContext
        note.setPrimitiveValue("quiet", forKey: "title")
        #expect(note.title == "quiet" && note.primitiveValue(forKey: "title") as? String == "quiet")
        #expect(!context.hasChanges && context.updatedObjects.isEmpty)
        // The @Managed primitive accessor reads and writes the same value, recording nothing.
        note.primitiveTitle = "quieter"
        #expect(note.title == "quieter" && note.primitiveTitle == "quieter")
        #expect(!context.hasChanges)
        // Wrapped in the change hooks, it is a change like any other.
        note.caption = "loud"
        #expect(note.title == "loud" && context.updatedObjects.contains(note))
        try context.save()
        let fresh = container.newBackgroundContext()
        let title = try fresh.performAndWait { try fetchNote(fresh).title }
        #expect(title == "loud")
    }

    @Test func unmodeledChangesDirtyOnlyClassesThatAskForIt() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, note) = try setUp(store)
        let context = container.viewContext
        #expect(HookedNote.contextShouldIgnoreUnmodeledPropertyChanges && !DirtyingNote.contextShouldIgnoreUnmodeledPropertyChanges)
        note.willChangeValue(forKey: "scratch")
        note.didChangeValue(forKey: "scratch")
        #expect(!note.isUpdated && !context.hasChanges)

        let dirty = DirtyingNote(context: context)
        dirty.title = "d"
        try context.save()
        let version = dirty.version
        dirty.willChangeValue(forKey: "scratch")
        dirty.didChangeValue(forKey: "scratch")
        #expect(dirty.isUpdated && context.hasChanges && context.updatedObjects.contains(dirty))
        try context.save()
        #expect(!dirty.isUpdated && !context.hasChanges && dirty.version == version + 1)
    }

    @Test func setMutationHooksChangeTheRelationshipAndItsInverse() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, note) = try setUp(store)
        let context = container.viewContext
        let tag = HookedTag(context: context)
        let other = HookedTag(context: context)
        note.tags = NSSet(array: [other])
        note.willChangeValue(forKey: "tags", withSetMutation: .union, using: [tag])
        note.didChangeValue(forKey: "tags", withSetMutation: .union, using: [tag])
        #expect(note.tags == NSSet(array: [tag, other]) && tag.notes == NSSet(array: [note]))
        note.willChangeValue(forKey: "tags", withSetMutation: .minus, using: [other])
        note.didChangeValue(forKey: "tags", withSetMutation: .minus, using: [other])
        #expect(note.tags == NSSet(array: [tag]) && other.notes?.count == 0)
        note.didChangeValue(forKey: "tags", withSetMutation: .set, using: [other])
        #expect(note.tags == NSSet(array: [other]) && tag.notes?.count == 0)
        note.didChangeValue(forKey: "tags", withSetMutation: .intersect, using: [tag])
        #expect(note.tags?.count == 0)
        try context.save()
    }

    @Test func validateValueChecksTheModelsRulesForOneKey() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (_, note) = try setUp(store)
        var value: AnyObject? = nil
        #expect { try note.validateValue(&value, forKey: "kind") } throws: { ($0 as NSError).code == NSValidationMissingMandatoryPropertyError }
        value = "fine" as NSString
        try note.validateValue(&value, forKey: "kind")
        value = NSNumber(value: 12)
        #expect { try note.validateValue(&value, forKey: "title") } throws: { ($0 as NSError).code == NSManagedObjectValidationError }
        // The subclass's override runs (the pointer form is Apple's declaration).
        var forbidden: AnyObject? = "forbidden" as NSString
        let pointer = UnsafeMutablePointer<AnyObject?>.allocate(capacity: 1)
        defer { pointer.deallocate() }
        pointer.initialize(to: forbidden)
        #expect { try note.validateValue(AutoreleasingUnsafeMutablePointer(pointer), forKey: "title") } throws: { ($0 as NSError).domain == "Notes" }
        forbidden = nil
        #expect(note.title == "first")  // validation changes nothing
    }

    @Test func subscriptAndObservationInfo() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, note) = try setUp(store)
        #expect(note["title"] as? String == "first")
        note["title"] = "subscripted"
        #expect(note.title == "subscripted" && container.viewContext.updatedObjects.contains(note))
        #expect(note.observationInfo() == nil)
        let info = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
        defer { info.deallocate() }
        note.setObservationInfo(info)
        #expect(note.observationInfo() == info)
        note.setObservationInfo(nil)
        #expect(note.observationInfo() == nil)
    }

    /// Deletes the saved note through another context, behind `context`'s back.
    private func deleteElsewhere(_ container: NSPersistentContainer) throws {
        let other = container.newBackgroundContext()
        try other.performAndWait {
            other.delete(try fetchNote(other))
            try other.save()
        }
    }

    @Test func inaccessibleFaultsBecomeDeletedByDefault() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, _) = try setUp(store)
        let context = container.newBackgroundContext()
        #expect(context.shouldDeleteInaccessibleFaults)
        try context.performAndWait {
            let note = try fetchNote(context)
            context.refresh(note, mergeChanges: false)  // a fault that must read its row
            try deleteElsewhere(container)
            #expect(note.title == nil)
            #expect(note.isDeleted && context.deletedObjects.contains(note))
            try context.save()  // not validated (kind is required and nil), gone without a conflict
            #expect(note.managedObjectContext == nil && !context.hasChanges)
        }
    }

    @Test func inaccessibleFaultsStayWhenTheContextSaysSo() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, _) = try setUp(store)
        let context = container.newBackgroundContext()
        context.shouldDeleteInaccessibleFaults = false
        try context.performAndWait {
            let note = try fetchNote(context)
            context.refresh(note, mergeChanges: false)
            try deleteElsewhere(container)
            #expect(note.title == nil && !note.isDeleted && context.deletedObjects.isEmpty)
        }
        let cautious = CautiousContext(concurrencyType: .privateQueueConcurrencyType)
        cautious.persistentStoreCoordinator = container.persistentStoreCoordinator
        let note = HookedNote(context: container.viewContext)
        note.title = "second"
        try container.viewContext.save()
        try cautious.performAndWait {
            let fetched = try #require(try cautious.fetch(NSFetchRequest<HookedNote>(entityName: "Note")).first)
            cautious.refresh(fetched, mergeChanges: false)
            try deleteElsewhere(container)
            _ = fetched.title
            #expect(cautious.asked == [fetched.objectID] && !fetched.isDeleted)
        }
    }

    @Test func detectConflictsChecksTheRowVersionOfAnUnchangedObject() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, note) = try setUp(store)
        let context = container.viewContext
        let other = container.newBackgroundContext()
        try other.performAndWait {
            try fetchNote(other).title = "theirs"
            try other.save()
        }
        context.detectConflicts(for: note)
        #expect { try context.save() } throws: { ($0 as NSError).code == NSManagedObjectMergeError }
        // Without the mark, a save of nothing checks nothing.
        context.rollback()
        try context.save()
        // With it, a row nobody changed passes, and its version advances.
        context.refresh(note, mergeChanges: false)
        _ = note.title
        let version = note.version
        context.detectConflicts(for: note)
        try context.save()
        #expect(note.version == version + 1 && !context.hasChanges)
    }
}

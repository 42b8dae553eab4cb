import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A note that records the lifecycle hooks Core Data calls on it.
final class LifecycleNote: NSManagedObject {
    @Managed var title: String?
    nonisolated(unsafe) static var calls: [String] = []

    override func awakeFromInsert() {
        super.awakeFromInsert()
        title = "untitled"  // Core Data's place for an insert-time default
        Self.calls.append("awakeFromInsert")
    }
    override func prepareForDeletion() {
        super.prepareForDeletion()
        Self.calls.append("prepareForDeletion \(title ?? "nil")")
    }
    override func didSave() {
        super.didSave()
        Self.calls.append("didSave \(title ?? "nil") inserted \(isInserted) deleted \(isDeleted) changes \(hasChanges)")
    }
}

/// An entity subclass of Note, for the entity hierarchy's API.
final class LifecycleMemo: NSManagedObject {
    @Managed var title: String?
}

/// `awakeFromInsert()`, `prepareForDeletion()`, `didSave()`, and the entity hierarchy's lookups.
@Suite("Objects: lifecycle hooks and entity hierarchy", .serialized)
struct ObjectLifecycleHookTests {
    static func model() -> NSManagedObjectModel {
        let note = NSEntityDescription(name: "Note", managedObjectClassName: NSStringFromClass(LifecycleNote.self), properties: [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
        ])
        let memo = NSEntityDescription(name: "Memo", managedObjectClassName: NSStringFromClass(LifecycleMemo.self))
        note.subentities = [memo]
        return NSManagedObjectModel(entities: [note, memo])
    }

    @Test func hooksRunAtInsertDeletionAndSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        LifecycleNote.calls = []
        let note = LifecycleNote(context: context)
        #expect(LifecycleNote.calls == ["awakeFromInsert"])
        #expect(note.title == "untitled")
        try context.save()
        #expect(LifecycleNote.calls.last == "didSave untitled inserted false deleted false changes false")
        LifecycleNote.calls = []
        context.delete(note)
        context.processPendingChanges()
        #expect(LifecycleNote.calls == ["prepareForDeletion untitled"])  // once, its values still readable
        try context.save()
        #expect(LifecycleNote.calls.last?.hasPrefix("didSave") == true)
        #expect(LifecycleNote.calls.last?.contains("deleted true") == true)
    }

    @Test func fetchingDoesNotAwakeFromInsert() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        _ = LifecycleNote(context: container.viewContext)
        try container.viewContext.save()
        LifecycleNote.calls = []
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let notes = try other.fetch(NSFetchRequest<LifecycleNote>(entityName: "Note"))
            #expect(notes.count == 1 && notes[0].title == "untitled")
        }
        #expect(!LifecycleNote.calls.contains("awakeFromInsert"))
    }

    @Test func entityHierarchyLookups() throws {
        let model = Self.model()
        let note = try #require(model.entitiesByName["Note"])
        let memo = try #require(model.entitiesByName["Memo"])
        #expect(note.subentitiesByName.keys.sorted() == ["Memo"])
        #expect(memo.isKindOf(entity: note))
        #expect(memo.isKindOf(entity: memo))
        #expect(!note.isKindOf(entity: memo))
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(model).viewContext
        #expect(NSEntityDescription.entity(forEntityName: "Memo", in: context) === context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Memo"])
        #expect(NSEntityDescription.entity(forEntityName: "Nothing", in: context) == nil)
    }
}

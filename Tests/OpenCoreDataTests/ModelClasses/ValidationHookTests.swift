import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A note whose class adds rules of its own, Apple's way: overriding the validation hooks, calling super.
final class ValidatedNote: NSManagedObject {
    @Managed var title: String?
    @Managed var pinned: Bool

    nonisolated(unsafe) static var calls: [String] = []

    override func validateForInsert() throws {
        try super.validateForInsert()
        Self.calls.append("insert \(title ?? "nil")")
        if title == "bad" { throw NSError(domain: "Notes", code: 1, userInfo: [NSLocalizedDescriptionKey: "no bad titles"]) }
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        Self.calls.append("update \(title ?? "nil")")
        if title?.isEmpty == true { throw NSError(domain: "Notes", code: 2) }
    }

    override func validateForDelete() throws {
        try super.validateForDelete()
        Self.calls.append("delete \(title ?? "nil")")
        if pinned { throw NSError(domain: "Notes", code: 3) }
    }
}

@Suite("Model classes: validation hooks", .serialized)
struct ValidationHookTests {
    private func context(_ store: TemporaryStore) throws -> NSManagedObjectContext {
        let note = NSEntityDescription(name: "Note", managedObjectClassName: NSStringFromClass(ValidatedNote.self), properties: [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
            { let a = NSAttributeDescription(name: "pinned", type: .booleanAttributeType); a.defaultValue = false; return a }(),
        ])
        return try store.container(NSManagedObjectModel(entities: [note])).viewContext
    }

    @Test func saveCallsEachObjectsHookAndThrowsWhatItThrows() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try context(store)
        ValidatedNote.calls = []
        let good = ValidatedNote(context: context)
        good.title = "good"
        try context.save()
        #expect(ValidatedNote.calls == ["insert good"])

        let bad = ValidatedNote(context: context)
        bad.title = "bad"
        #expect { try context.save() } throws: { ($0 as NSError).domain == "Notes" && ($0 as NSError).code == 1 }
        #expect(bad.isInserted && context.hasChanges)
        #expect(try store.container(context.persistentStoreCoordinator!.managedObjectModel).viewContext
            .count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 1)
        context.delete(bad)

        // Several failures: one NSValidationMultipleErrorsError with each under NSDetailedErrorsKey.
        ValidatedNote.calls = []
        good.title = ""
        good.pinned = true
        let other = ValidatedNote(context: context)
        other.title = "bad"
        #expect { try context.save() } throws: { error in
            let e = error as NSError
            let details = e.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            return e.code == NSValidationMultipleErrorsError && Set(details.map(\.code)) == [1, 2]
        }
        #expect(ValidatedNote.calls.sorted() == ["insert bad", "update "])
        context.delete(other)
        good.title = "fine"
        try context.save()

        // A delete the class refuses: nothing is deleted.
        ValidatedNote.calls = []
        context.delete(good)
        #expect { try context.save() } throws: { ($0 as NSError).code == 3 }
        #expect(ValidatedNote.calls == ["delete fine"])
    }

    @Test func theDefaultsCheckTheModelsRules() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try context(store)
        let note = ValidatedNote(context: context)
        note.title = "x"
        try note.validateForInsert()
        note.setValue(nil, forKey: "title")
        try note.validateForInsert()
        note.setValue(42, forKey: "title")
        #expect(throws: CoreDataError.self) { try note.validateForInsert() }
    }
}

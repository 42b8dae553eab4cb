import Foundation
import OpenCoreData
import Testing

// This target is built in the Swift 6 language mode (Package.swift pins it): each test below is Core Data
// code as libraries written for Swift 6 have it, capturing values that are not `Sendable` (managed
// objects, a did-save notification or its payload, the context) in the blocks of `perform`,
// `performAndWait`, `performBackgroundTask` and notification observers. Core Data's blocks come from
// Objective-C, whose `Sendable` annotations Swift applies leniently (`@preconcurrency`): such code
// compiles there, so it must compile here (with the warnings Apple's gives, not errors).

/// The class of the notes the tests write.
final class Swift6Note: NSManagedObject {
    @Managed var title: String?
}

/// A did-save payload as libraries keep one: a class of their own, not `Sendable`.
final class SavePayload {
    let userInfo: [AnyHashable: Any]
    init(_ notification: Notification) { userInfo = notification.userInfo ?? [:] }
}

@Suite("Swift 6 mode: Core Data's blocks capture what is not Sendable")
struct ClosureCaptureIdiomTests {
    static func container() throws -> NSPersistentContainer {
        let note = NSEntityDescription()
        note.name = "Swift6Note"
        note.managedObjectClassName = NSStringFromClass(Swift6Note.self)
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        note.properties = [title]
        let model = NSManagedObjectModel()
        model.entities = [note]
        let container = NSPersistentContainer(name: "Swift6", managedObjectModel: model)
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Inserts and saves a note with `title` in a new background context; returns its ID.
    static func saveNote(_ title: String, in container: NSPersistentContainer) throws -> NSManagedObjectID {
        let writer = container.newBackgroundContext()
        return try writer.performAndWait {
            let note = Swift6Note(context: writer)
            note.title = title
            try writer.save()
            return note.objectID
        }
    }

    @Test func performCapturesObjectsAndTheContext() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        let note = context.performAndWait { Swift6Note(context: context) }
        context.perform {
            note.title = "set in perform"
            try? context.save()
        }
        let saved = context.performAndWait { (note.title, note.objectID.isTemporaryID, context.hasChanges) }
        #expect(saved.0 == "set in perform" && !saved.1 && !saved.2, "the block ran on the queue before performAndWait's")
    }

    /// A note the reader has loaded (title "before"), then changed to "after" by another context, whose
    /// save's notification block hands the reader `merge` in `perform`.
    static func mergeAfterSave(_ merge: @escaping @Sendable (NSManagedObjectContext, Notification) -> Void) throws -> String? {
        let container = try Self.container()
        let reader = container.newBackgroundContext()
        let readerNote = try reader.performAndWait {
            let note = Swift6Note(context: reader)
            note.title = "before"
            try reader.save()
            return note
        }
        let writer = container.newBackgroundContext()
        // Foundation's observer block is @Sendable (strictly, on Linux as on Apple platforms): it captures
        // the context, which is Sendable, and hands the notification to a block of Core Data's.
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { note in
            merge(reader, note)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let id = readerNote.objectID
        try writer.performAndWait {
            let note = try #require(try writer.existingObject(with: id) as? Swift6Note)
            note.title = "after"
            try writer.save()
        }
        return reader.performAndWait { readerNote.title }
    }

    @Test func performMergesADidSavePayload() throws {
        let title = try Self.mergeAfterSave { reader, note in
            let payload = SavePayload(note)
            reader.perform {
                NSManagedObjectContext.mergeChanges(fromRemoteContextSave: payload.userInfo, into: [reader])
            }
        }
        #expect(title == "after")
    }

    @Test func performMergesTheNotificationItself() throws {
        let title = try Self.mergeAfterSave { reader, note in
            reader.perform { reader.mergeChanges(fromContextDidSave: note) }
        }
        #expect(title == "after")
    }

    @Test func withoutTheMergeTheReaderKeepsItsValue() throws {
        #expect(try Self.mergeAfterSave { _, _ in } == "before", "what the tests above see is the merge's doing")
    }

    @Test func performBackgroundTaskCapturesObjectsOfTheCaller() throws {
        let container = try Self.container()
        let id = try Self.saveNote("original", in: container)
        let titles = NSMutableArray()  // not Sendable, captured as apps capture their own state
        let done = DispatchSemaphore(value: 0)
        container.performBackgroundTask { context in
            let note = context.object(with: id) as? Swift6Note
            titles.add(note?.title ?? "missing")
            note?.title = "renamed"
            try? context.save()
            done.signal()
        }
        done.wait()
        #expect(titles == ["original"])
        let reader = container.newBackgroundContext()
        #expect(reader.performAndWait { (reader.object(with: id) as? Swift6Note)?.title } == "renamed")
    }

    @Test func asyncPerformBackgroundTaskReturnsWhatTheBlockReads() async throws {
        let container = try Self.container()
        let id = try Self.saveNote("original", in: container)
        let note = await container.performBackgroundTask { context in
            context.object(with: id) as? Swift6Note
        }
        #expect(note?.objectID == id)
    }

    @Test func asyncPerformReturnsAnObjectThatIsNotSendable() async throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        let note = try await context.perform {
            let note = Swift6Note(context: context)
            note.title = "async"
            try context.save()
            return note
        }
        #expect(await context.perform { note.title } == "async")
    }

    @Test func coordinatorPerformCapturesTheContext() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        let coordinator = container.persistentStoreCoordinator
        let stores = NSMutableArray()
        coordinator.perform {
            stores.addObjects(from: coordinator.persistentStores.map(\.type))
            _ = context.name
        }
        coordinator.performAndWait {}
        #expect(stores == [NSInMemoryStoreType])
    }
}

import Foundation
import Synchronization

/// Which payloads of a context's notifications something may read (docs/Store.md, "Notifications and who
/// reads them"). `NotificationCenter` cannot say whether a name has observers, so the library notes who
/// could: an observer by name needs the name, and the public names
/// (``NSManagedObjectContext/didSaveObjectsNotification``, `Notification.Name.NSManagedObjectContextDidSave`,
/// …) note it in ``process`` when read; a merging context notes that it reads saved rows. Nothing is
/// ever un-noted: once noted, every save builds that payload as Core Data does.
final class NotificationInterest: Sendable {
    /// The process's: what contexts read, unless a test gives one its own.
    static let process = NotificationInterest()

    /// `ObjectsDidChange`'s sets.
    let objectsDidChange = Atomic<Bool>(false)
    /// `DidSave`'s sets of objects (and the saved rows with them).
    let didSave = Atomic<Bool>(false)
    /// `didSaveObjectIDsNotification`'s sets of IDs (made from the saved rows).
    let didSaveObjectIDs = Atomic<Bool>(false)
    /// The saved rows a `DidSave` carries for merging contexts (``SavedChanges``).
    let savedRows = Atomic<Bool>(false)

    /// A payload something may read.
    enum Payload {
        case objectsDidChange, didSave, didSaveObjectIDs, savedRows
    }

    /// Notes `payload` in ``process`` and returns `name`: what a public notification name's getter does.
    static func noting(_ payload: Payload, _ name: Notification.Name) -> Notification.Name {
        process.note(payload)
        return name
    }

    /// Notes that something may read `payload`.
    func note(_ payload: Payload) {
        switch payload {
        case .objectsDidChange: Self.set(objectsDidChange)
        case .didSave: Self.set(didSave)
        case .didSaveObjectIDs: Self.set(didSaveObjectIDs)
        case .savedRows: Self.set(savedRows)
        }
    }

    private static func set(_ flag: borrowing Atomic<Bool>) {
        if !flag.load(ordering: .relaxed) { flag.store(true, ordering: .relaxed) }
    }

    /// Whether something may read `ObjectsDidChange`'s sets.
    var readsObjectsDidChange: Bool { objectsDidChange.load(ordering: .relaxed) }

    /// What a store save's notifications must carry now.
    var wanted: Payloads {
        let objects = didSave.load(ordering: .relaxed), ids = didSaveObjectIDs.load(ordering: .relaxed)
        return Payloads(objects: objects, objectIDs: ids, rows: objects || ids || savedRows.load(ordering: .relaxed))
    }

    /// What a save's notifications carry.
    struct Payloads {
        /// `DidSave`'s sets of objects.
        let objects: Bool
        /// `didSaveObjectIDsNotification`'s sets of IDs.
        let objectIDs: Bool
        /// The saved rows (merges read them; the ID sets are made from them).
        let rows: Bool

        /// Everything, as Core Data posts it (a child context's save into its parent, a save of nothing).
        static let all = Payloads(objects: true, objectIDs: true, rows: true)
    }
}

/// The names the library posts under: the public constants' names, read without noting an interest
/// (posting is not observing).
extension Notification.Name {
    static let contextObjectsDidChange = Notification.Name("NSObjectsChangedInManagingContextNotification")
    static let contextWillSave = Notification.Name("NSManagingContextWillSaveChangesNotification")
    static let contextDidSave = Notification.Name("NSManagingContextDidSaveChangesNotification")
    static let contextDidSaveObjectIDs = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
}

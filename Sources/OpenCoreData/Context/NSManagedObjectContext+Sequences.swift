import Foundation

/// Not in Core Data (issue #35): what a context saved, by object ID (its `didSaveObjectIDsNotification`).
public struct ContextDidSave: Sendable, Equatable {
    public let inserted: Set<NSManagedObjectID>
    public let updated: Set<NSManagedObjectID>
    public let deleted: Set<NSManagedObjectID>
}

/// Not in Core Data (issue #35): a context's `didChangeObjectsNotification`, by object ID.
public struct ContextObjectsDidChange: Sendable, Equatable {
    public let inserted: Set<NSManagedObjectID>
    public let updated: Set<NSManagedObjectID>
    public let deleted: Set<NSManagedObjectID>
    public let refreshed: Set<NSManagedObjectID>
    public let invalidated: Set<NSManagedObjectID>
    /// `reset()` forgot every object (`NSInvalidatedAllObjectsKey`).
    public let invalidatedAll: Bool
}

extension NSManagedObjectContext {
    /// Not in Core Data (issue #35): the context's saves as an `AsyncSequence` (from
    /// `didSaveObjectIDsNotification`, with typed payloads). Every save is delivered, in order; each
    /// iteration observes from when it starts, and a cancelled or finished one stops observing without
    /// keeping the context alive.
    public var didSaveChanges: ContextNotificationSequence<ContextDidSave> {
        ContextNotificationSequence(context: self, name: NSManagedObjectContext.didSaveObjectIDsNotification) { info in
            ContextDidSave(inserted: Self.ids(info[NSInsertedObjectIDsKey]), updated: Self.ids(info[NSUpdatedObjectIDsKey]),
                           deleted: Self.ids(info[NSDeletedObjectIDsKey]))
        }
    }

    /// Not in Core Data (issue #35): the context's `didChangeObjectsNotification` as an `AsyncSequence`,
    /// by object ID; otherwise as ``didSaveChanges``.
    public var objectsDidChange: ContextNotificationSequence<ContextObjectsDidChange> {
        ContextNotificationSequence(context: self, name: NSManagedObjectContext.didChangeObjectsNotification) { info in
            ContextObjectsDidChange(inserted: Self.ids(info[NSInsertedObjectsKey]), updated: Self.ids(info[NSUpdatedObjectsKey]),
                                    deleted: Self.ids(info[NSDeletedObjectsKey]), refreshed: Self.ids(info[NSRefreshedObjectsKey]),
                                    invalidated: Self.ids(info[NSInvalidatedObjectsKey]), invalidatedAll: info[NSInvalidatedAllObjectsKey] != nil)
        }
    }

    /// The object IDs of a notification's set of objects or of object IDs.
    static func ids(_ value: Any?) -> Set<NSManagedObjectID> {
        if let ids = value as? Set<NSManagedObjectID> { return ids }
        let members = value.flatMap(NSManagedObject.toManyElements) ?? []
        return Set(members.compactMap { ($0 as? NSManagedObject)?.objectID ?? $0 as? NSManagedObjectID })
    }
}

/// Not in Core Data: an `AsyncSequence` of one of a context's notifications (see
/// ``NSManagedObjectContext/didSaveChanges``).
public struct ContextNotificationSequence<Element: Sendable>: AsyncSequence, Sendable {
    weak var context: NSManagedObjectContext?
    let name: Notification.Name
    let make: @Sendable ([AnyHashable: Any]) -> Element

    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        guard let context else {
            continuation.finish()
            return stream.makeAsyncIterator()
        }
        let make = self.make
        let observer = NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { note in
            continuation.yield(make(note.userInfo ?? [:]))
        }
        let token = ObserverToken(observer)
        continuation.onTermination = { _ in NotificationCenter.default.removeObserver(token.observer) }
        return stream.makeAsyncIterator()
    }
}

/// A notification observer handed to the stream's termination handler.
private struct ObserverToken: @unchecked Sendable {
    let observer: NSObjectProtocol
    init(_ observer: NSObjectProtocol) { self.observer = observer }
}

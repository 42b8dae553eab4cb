import Foundation

extension FetchedResultsCore {
    /// The rows of the fetched entity that read, through a relationship, a key that this change changed
    /// (a renamed classification's animals, for a request sorted, sectioned or filtered by
    /// `classification.order`) — beyond Core Data, which leaves them where they were.
    ///
    /// Every changed object whose entity a key path reads through (registered in the context or not: the
    /// updated and deleted objects of the notification, and the rows of a merged save the context never
    /// registered) is followed back through the inverse relationships to the fetched entity, as this
    /// context sees the graph; see ``NSManagedObjectContext/follow(_:through:to:)`` for the queries that
    /// costs. Inserted objects are not followed: linking one to an object reachable from the results
    /// changes that object's relationship too (inverses are kept on both sides), and that change is
    /// followed.
    ///
    /// A relationship without an inverse is followed back by a fetch (``NSManagedObjectContext/holders(of:through:toMany:entity:)``).
    ///
    /// Returns the rows as objects of the context and those registered for this (the caller unregisters
    /// the ones it does not show). Throws the store's error (the caller's policy:
    /// ``trackingFailed(_:)``).
    func rowsReadingRelatedChanges(updated: Set<NSManagedObject>, deleted: Set<NSManagedObject>, announced: AnnouncedChanges) throws
        -> (objects: [NSManagedObject], made: [NSManagedObject]) {
        guard let keyPaths, keyPaths.readsRelatedObjects, let plan else { return ([], []) }
        var changes = RelatedChanges(keyPaths: keyPaths)
        let changedSlots = announced.changedSlots
        for object in updated { changes.note(.object(object), entity: object.entity, changed: changedSlots[object.objectID]) }
        for object in deleted { changes.note(.object(object), entity: object.entity, changed: nil) }
        for row in announced.unregisteredUpdated { changes.note(.row(row.id, row.values), entity: row.id.entity, changed: row.changedSlots) }
        for id in announced.unregisteredDeleted {
            guard let layout = id.entity.layout else { continue }
            changes.note(.ref(ObjectRef(key: id.key, entityID: layout.entityID)), entity: id.entity, changed: nil)
        }
        return try context.rows(of: plan, reading: changes)
    }
}

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
    /// the ones it does not show); `nil` when such a fetch failed: the caller fetches again.
    func rowsReadingRelatedChanges(updated: Set<NSManagedObject>, deleted: Set<NSManagedObject>, announced: AnnouncedChanges?)
        -> (objects: [NSManagedObject], made: [NSManagedObject])? {
        guard let keyPaths, keyPaths.readsRelatedObjects, let plan else { return ([], []) }
        var reached: [RequestKeyPaths.RelatedKey: [GraphNode]] = [:]
        func note(_ node: GraphNode, entity: NSEntityDescription, layout: EntityLayout, changed: Set<Int>?) {
            for key in keyPaths.relatedKeys(of: entity) {
                guard let slot = layout.slotByName[key.key], changed?.contains(slot) ?? true else { continue }
                reached[key, default: []].append(node)
            }
        }
        let changedSlots = announced?.changedSlots ?? [:]
        for object in updated { note(.object(object), entity: object.entity, layout: object.layout, changed: changedSlots[object.objectID]) }
        for object in deleted { note(.object(object), entity: object.entity, layout: object.layout, changed: nil) }
        for row in announced?.unregisteredUpdated ?? [] {
            guard let layout = row.id.entity.layout else { continue }
            note(.row(row.id, row.values), entity: row.id.entity, layout: layout, changed: row.changedSlots)
        }
        for id in announced?.unregisteredDeleted ?? [] {
            guard let layout = id.entity.layout else { continue }
            note(.ref(ObjectRef(key: id.key, entityID: layout.entityID)), entity: id.entity, layout: layout, changed: nil)
        }
        guard !reached.isEmpty else { return ([], []) }

        var roots = Set<ObjectRef>()
        for (key, nodes) in reached {
            var current = nodes
            var refs = Set<ObjectRef>()
            for hop in key.back {
                if let inverse = hop.inverse {
                    refs = context.follow(current, through: inverse, to: hop.entity)
                } else {
                    guard let found = try? context.holders(of: Set(current.map(\.ref)), through: hop.forward, toMany: hop.forwardIsToMany,
                                                           entity: hop.entity) else { return nil }
                    refs = found
                }
                current = refs.map { .ref($0) }
            }
            roots.formUnion(refs)
        }
        let included = Set(plan.entityIDs ?? plan.layout.root.layout.entityIDs)
        return context.objects(for: roots.filter { included.contains($0.entityID) })
    }
}

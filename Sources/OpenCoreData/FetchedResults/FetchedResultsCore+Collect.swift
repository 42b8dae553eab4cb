import Foundation

extension FetchedResultsCore {
    /// Step (a) of an update: the change set of one change of the context — the only step that reads
    /// the context or the store. Takes the changed objects of the request's entities (and, through
    /// ``rowsReadingRelatedChanges(updated:deleted:announced:)``, the rows that read a changed related
    /// object), makes objects for the rows of a merged save that the context never registered, reads
    /// the to-many relationships the predicate reads of those (one query per relationship), evaluates
    /// the predicate in memory and reads each belonging object's sort values and section name.
    ///
    /// The objects it registered for this are added to `made` (the caller unregisters those it does not
    /// show, whatever happens). `windowed`: for a `fetchLimit`/`fetchOffset` window every changed object
    /// is evaluated (its rows are found by object ID), and the rows deleted that the context never
    /// registered are collected. Throws the store's error.
    func collect(_ announced: AnnouncedChanges, plan: FetchPlan, windowed: Bool,
                 made: inout [NSManagedObject]) throws -> FetchedChangeSet {
        let included = includedEntityIDs
        let root = plan.layout.root
        let ownKeys = keyPaths?.ownKeys ?? []
        func relevant(_ o: NSManagedObject) -> Bool { o.layout.root === root && included.contains(o.layout.entityID) }
        // A block predicate, or a section name read through a `@KeyValue` property, may read any key.
        let readsEveryKey = plan.evaluatesInMemory || keyPaths?.readsUnmodeledKeys == true
        func readsAny(_ slots: Set<Int>, _ layout: EntityLayout) -> Bool {
            readsEveryKey || slots.contains { $0 < layout.properties.count && ownKeys.contains(layout.properties[$0].name) }
        }
        let inserted = announced.inserted, deleted = announced.deleted
        var updated = announced.updated
        // Rows whose values read through a relationship changed (registered or not): evaluated like
        // changed rows, whatever their own changed keys.
        let related = try rowsReadingRelatedChanges(updated: updated, deleted: deleted, announced: announced)
        made += related.made
        let forced = Set(related.objects.map(ObjectIdentifier.init))
        updated.formUnion(related.objects)
        // Rows a merged save changed that this context never registered: they may match now. Every one is
        // evaluated, whatever keys the save changed: those are relative to what the saving context had
        // read, which need not be what this context last saw (a row deleted here can come back).
        for row in announced.unregisteredUpdated {
            let layout = row.id.entity.layout!
            guard layout.root === root, included.contains(layout.entityID) else { continue }
            let (object, isNew) = context.objectForMergedRow(row)
            if isNew { made.append(object) }
            updated.insert(object)
        }
        // Rows read from the store for this change are about to be evaluated: their to-many relationships
        // that the predicate reads are read together (`ANY zoos.name == …`), not one query per row.
        if plan.predicate != nil { try context.readToManys(of: made, keys: ownKeys) }
        let predicate = plan.predicate.map { NSPredicate(node: $0) }
        func matches(_ object: NSManagedObject) -> Bool {
            guard !deleted.contains(object), !object.isDeleted, object.managedObjectContext === context else { return false }
            // An evaluation error (a key path the object cannot read) means no match, as in a fetch.
            return predicate.map { (try? $0.evaluate(validatingReader: object)) ?? false } ?? true
        }

        var changes = FetchedChangeSet()
        changes.objects.reserveCapacity(updated.count + inserted.count + deleted.count)
        func note(_ object: NSManagedObject) {
            let isUpdate = updated.contains(object) && !inserted.contains(object)
            if !windowed, isUpdate, !forced.contains(ObjectIdentifier(object)),
               let slots = announced.changedSlots[object.objectID], !readsAny(slots, object.layout) {
                changes.objects.append(FetchedChange(object: object, entry: nil, updated: true, keepsPlace: true))
                return
            }
            changes.objects.append(FetchedChange(object: object, entry: matches(object) ? entry(for: object) : nil,
                                                 updated: isUpdate, keepsPlace: false))
        }
        // Each changed object once (no union of the three sets built for it).
        for object in updated where relevant(object) { note(object) }
        for object in inserted where relevant(object) && !updated.contains(object) { note(object) }
        for object in deleted where relevant(object) && !updated.contains(object) && !inserted.contains(object) { note(object) }
        if windowed {
            changes.gone = announced.unregisteredDeleted.filter { included.contains($0.entity.layout.entityID) && $0.entity.layout.root === root }
        }
        return changes
    }
}

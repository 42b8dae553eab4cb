import Foundation

/// One changed object of a controller's entities, as the collect step found it (step (a) of
/// ``FetchedResultsCore/process(_:)``): where it belongs now, if anywhere. A value: the pure step reads
/// no context and no store.
struct FetchedChange {
    let object: NSManagedObject
    /// Its entry by its current values when it belongs to the results; `nil` when it does not (deleted,
    /// or not matching the predicate). Ignored when ``keepsPlace``.
    let entry: FetchedEntry?
    /// Announced as updated (not inserted): reported as an update, or a move, where it stays shown.
    let updated: Bool
    /// An update of keys the request does not read (a to-many's other side, a note): it cannot move or
    /// filter the object, which stays where it is (an update in place if shown, nothing otherwise).
    let keepsPlace: Bool
}

/// What the collect step found for one change of the context: the changed objects of the controller's
/// entities, each once, and (for a `fetchLimit`/`fetchOffset` window) the rows a merged save deleted
/// that the context never registered.
struct FetchedChangeSet {
    var objects: [FetchedChange] = []
    var gone: [NSManagedObjectID] = []
}

/// What the pure step hands to delivery: the batch, and the sections before it as far as the delegate
/// may see them (`nil`: the delegate sees only the new sections — a change within one section).
struct FetchedUpdate {
    var oldSections: [FetchedSection]?
    var batch = ChangeTracker.Batch()
}

extension FetchedResultsState {
    /// Step (b): the results after `changes`, and the batch that tells it. Pure: no context or store is
    /// read (`indexTitle` names a new section's index title; the controller asks its delegate).
    /// `keepingOldSections`: the delegate may receive every object of the old sections (the difference
    /// form); otherwise only what a section change needs (see ``sectionsForDelegate(removing:whole:)``).
    ///
    /// Consuming: the controller moves its state in, so that the sections change in place (a second
    /// reference would make the first change copy every section, an O(n) cost per change).
    consuming func applying(_ changes: [FetchedChange], keepingOldSections: Bool,
                            indexTitle: (String) -> String?) -> (state: FetchedResultsState, update: FetchedUpdate) {
        let update = apply(changes, keepingOldSections: keepingOldSections, indexTitle: indexTitle)
        return (self, update)
    }

    /// ``applying(_:keepingOldSections:indexTitle:)`` in place.
    mutating func apply(_ changes: [FetchedChange], keepingOldSections whole: Bool, indexTitle: (String) -> String?) -> FetchedUpdate {
        var moving: [(object: NSManagedObject, old: FetchedEntry?, new: FetchedEntry?, updated: Bool)] = []
        moving.reserveCapacity(changes.count)
        for c in changes {
            let old = entry(for: c.object)
            if c.keepsPlace {
                if let old { moving.append((c.object, old, old, true)) }
            } else if old != nil || c.entry != nil {
                moving.append((c.object, old, c.entry, c.updated))
            }
        }
        guard !moving.isEmpty else { return FetchedUpdate() }
        // One object moving within its section (the common edit) is shifted in place; its new place is
        // known then, without another search. Unless the delegate may receive whole old sections, the
        // sections' list stays the one it was and is not copied for the delegate.
        if moving.count == 1, let only = moving.first, let from = only.old, let to = only.new,
           from.section == to.section, let path = indexPath(of: from) {
            let old = whole ? sections : nil
            let movedTo = move(from, at: path, to: to)
            // What the tracker would say of one object and no other change: an update where it stays, a
            // move where it goes; nothing for an object that was not updated (an insert shown already).
            var batch = ChangeTracker.Batch()
            if only.updated { batch.objects = [.init(type: movedTo == path ? .update : .move, object: only.object, old: path, new: movedTo)] }
            return FetchedUpdate(oldSections: old, batch: batch)
        }
        // Every changed object leaves its old place and the ones that belong are placed again, in place
        // (the old sections stay as they were for the delegate: sections are values).
        let leaving = moving.compactMap(\.old)
        let oldSections = sectionsForDelegate(removing: leaving, whole: whole)
        let oldByName = Dictionary(uniqueKeysWithValues: oldSections.map { ($0.name, $0) })
        let places = apply(removing: leaving, inserting: moving.compactMap(\.new)) { oldByName[$0]?.indexTitle ?? indexTitle($0) }
        let tracked = Dictionary(uniqueKeysWithValues: moving.map { c in
            let id = ObjectIdentifier(c.object)
            return (id, (old: places.old[id], new: places.new[id], updated: c.updated, object: c.object))
        })
        let batch = ChangeTracker.changes(oldSections: oldSections.map(\.name), newSections: sections.map(\.name), objects: tracked)
        return FetchedUpdate(oldSections: oldSections, batch: batch)
    }

    /// The sections as they are before `removed` leave them, as far as the delegate can see them: every
    /// object of every section when `whole` (the difference form may list them); otherwise each
    /// section's name and index title, with its objects only where all of them leave (a section deleted,
    /// whose info the delegate receives). Holding the objects of a section that stays would make the
    /// first removal from it copy the whole section (copy on write): a cost that grew with the section,
    /// not with the change.
    func sectionsForDelegate(removing removed: [FetchedEntry], whole: Bool) -> [FetchedSection] {
        if whole { return sections }
        var leaving: [String: Int] = [:]
        for e in removed { leaving[e.section, default: 0] += 1 }
        return sections.map { s in
            leaving[s.name] == s.entries.count ? s : FetchedSection(name: s.name, indexTitle: s.indexTitle, entries: [])
        }
    }
}

extension FetchedWindow {
    /// Step (b) under `fetchLimit`/`fetchOffset`, on the known rows: rows deleted, changed or gone
    /// leave; changed rows that belong join unless they sort beyond every known row (see ``insert(_:)``).
    /// Pure; afterwards ``needsEdge`` says whether the collect step must read the window's edge.
    mutating func apply(_ changes: FetchedChangeSet) {
        for id in changes.gone { remove(id) }
        for c in changes.objects { remove(c.object.objectID) }
        for c in changes.objects { if let e = c.entry { insert(e) } }
    }
}

extension ChangeTracker {
    /// The batch between whole old and new sections (after a refetch, and between a window's slices).
    /// Objects in `changed`, and those whose place changed, are reported as updated (moved if their
    /// order changed); the others keep their relative order.
    static func changes(from old: [FetchedSection], to new: [FetchedSection], changed: Set<ObjectIdentifier>) -> Batch {
        var oldPaths: [ObjectIdentifier: (IndexPath, NSManagedObject)] = [:]
        for (s, section) in old.enumerated() { for (r, e) in section.entries.enumerated() { oldPaths[ObjectIdentifier(e.object)] = (IndexPath(row: r, section: s), e.object) } }
        var newPaths: [ObjectIdentifier: (IndexPath, NSManagedObject)] = [:]
        for (s, section) in new.enumerated() { for (r, e) in section.entries.enumerated() { newPaths[ObjectIdentifier(e.object)] = (IndexPath(row: r, section: s), e.object) } }
        var tracked: [ObjectIdentifier: (old: IndexPath?, new: IndexPath?, updated: Bool, object: NSManagedObject)] = [:]
        for id in Set(oldPaths.keys).union(newPaths.keys) {
            let o = oldPaths[id], n = newPaths[id]
            let object = (o ?? n)!.1
            if let o, let n, o.0 == n.0, !changed.contains(id) {
                // Same place: still a move if the objects around it changed order (handled by the tracker).
                tracked[id] = (o.0, n.0, false, object)
                continue
            }
            tracked[id] = (o?.0, n?.0, changed.contains(id), object)
        }
        return changes(oldSections: old.map(\.name), newSections: new.map(\.name), objects: tracked)
    }
}

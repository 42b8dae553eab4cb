import Foundation

/// The state of a fetched results controller, shared by the typed controller and the type-erased view
/// its delegate receives.
final class FetchedResultsCore: @unchecked Sendable {
    enum DeliveryMode { case snapshot, difference, classic }

    /// The caller's fetch request itself, shared with the typed controller. As Core Data documents, the
    /// request must not be modified after the controller was created (the controller reads it again
    /// in `performFetch()` and its cache signature).
    let request: any FetchedResultsRequest
    let context: NSManagedObjectContext
    let sectionNameKeyPath: String?
    let cacheName: String?
    weak var delegate: NSFetchedResultsControllerDelegate?
    var deliveryMode: DeliveryMode?
    var notImplemented = false
    var titleProvider: ((String) -> String?)?
    /// The sections shown and each shown object's entry; `nil` before `performFetch()`.
    private(set) var state: FetchedResultsState?
    /// For a request with `fetchLimit`/`fetchOffset`: the rows before the window, the window and a
    /// buffer beyond it, which every change is applied to (see ``FetchedWindow``).
    private(set) var window: FetchedWindow?
    private var observer: NSObjectProtocol?
    private var saveObserver: NSObjectProtocol?
    private(set) var plan: FetchPlan? { didSet { includedEntityIDs = Set(plan.map { $0.entityIDs ?? $0.layout.root.layout.entityIDs } ?? []) } }
    /// The entities whose objects the plan fetches, by number (read for every changed object).
    private var includedEntityIDs: Set<Int> = []
    /// The one sort order, SQL's and memory's: the plan's descriptors.
    private var order = FetchedOrder(descriptors: []) { didSet { keySlots = nil } }
    /// Where ``entry(for:)`` reads the sort keys and the section name of objects of one layout (the last
    /// one asked for): the slot of each key that names an attribute, `nil` for a key read through
    /// key-value coding.
    private var keySlots: (serial: Int, sort: [Int?], section: Int?)?
    /// Whether the last `performFetch()` took its sections from the cache file instead of the store.
    private(set) var reusedCache = false
    /// The keys the request reads, of the fetched entity and through relationships (see
    /// ``RequestKeyPaths``).
    private(set) var keyPaths: RequestKeyPaths?

    /// The sections shown (`nil` before `performFetch()`).
    var sections: [FetchedSection]? { state?.sections }

    init(request: any FetchedResultsRequest, context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        self.request = request
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        if let saveObserver { NotificationCenter.default.removeObserver(saveObserver) }
    }

    var erased: NSFetchedResultsController<NSFetchRequestResult> { NSFetchedResultsController(core: self) }

    // MARK: - Fetch

    func performFetch() throws {
        guard let descriptors = request.sortDescriptors, !descriptors.isEmpty else {
            throw CoreDataError(NSCoreDataError, "An instance of NSFetchedResultsController requires a fetch request with sort descriptors")
        }
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError(NSCoreDataError, "The controller's context has no persistent store coordinator")
        }
        let plan = try request.plan(model: coordinator.managedObjectModel, blocksInMemory: coordinator.evaluatesBlockPredicates)
        if let path = sectionNameKeyPath { try plan.checkSectionNameKeyPath(path) }
        self.plan = plan
        order = FetchedOrder(descriptors: plan.descriptors)
        keyPaths = RequestKeyPaths(entity: plan.entity, predicate: plan.predicate, sortKeys: plan.descriptors.compactMap(\.key),
                                   sectionNameKeyPath: sectionNameKeyPath)
        // The cache is consulted and written only when the results are the store's (no unsaved changes),
        // and never for a block predicate (its text, `BLOCKPREDICATE(0x…)`, names an address, not a test).
        let signature = cacheName != nil && !context.hasChanges && !plan.evaluatesInMemory ? FetchedResultsCache.signature(self, plan: plan) : nil
        if let cacheName, let signature, let file = FetchedResultsCache.read(cacheName, matching: signature),
           let restored = restore(file, plan: plan) {
            (state, window) = (FetchedResultsState(restored.0, order: order), restored.1)
            reusedCache = true
        } else {
            (state, window) = try fetchState(plan)
            reusedCache = false
            if let cacheName, let signature {
                FetchedResultsCache.write(cacheName, signature: signature, sections: state!.sections, outside: window)
            }
        }
        if observer == nil {
            observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification,
                                                              object: context, queue: nil) { [weak self] note in
                self?.process(note)
            }
            saveObserver = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification,
                                                                  object: context, queue: nil) { [weak self] note in
                self?.adoptStoreKeys(note)
            }
        }
    }

    /// Runs the request (`performFetch()`, and after the context's reset). A request with
    /// `fetchLimit`/`fetchOffset` is run from position 0 to the end of the window's buffer, still one
    /// query; the rows outside the window that the fetch registered are unregistered again, as a fetch
    /// of the window alone would not have registered them.
    private func fetchState(_ plan: FetchPlan) throws -> (FetchedResultsState, FetchedWindow?) {
        guard plan.limit > 0 || plan.offset > 0 else {
            let objects = try request.fetchObjects(in: context, plan: plan).objects
            return (FetchedResultsState(try makeSections(objects.map(entry(for:))), order: order), nil)
        }
        var window = FetchedWindow(offset: plan.offset, limit: plan.limit, order: order)
        let fetched = try request.fetchObjects(in: context, plan: plan.range(offset: 0, limit: window.edgeLimit))
        window.append(edge: fetched.objects.map(entry(for:)), asked: window.edgeLimit)
        let state = FetchedResultsState(try windowSections(&window), order: order)
        forget(fetched.registered, unless: state)
        return (state, window)
    }

    /// The window's sections. Rows entering the window are registered in the context (the instance it
    /// registered for the row, if any, replaces the one kept).
    private func windowSections(_ window: inout FetchedWindow) throws -> [FetchedSection] {
        for i in window.windowRange {
            let kept = window.rows[i].object
            let registered = context.registerKept(kept)
            if registered !== kept { window.replaceObject(at: i, with: registered) }
        }
        return try makeSections(Array(window.rows[window.windowRange]))
    }

    /// Unregisters the objects a fetch or a merge registered that are not shown.
    private func forget(_ objects: [NSManagedObject], unless state: FetchedResultsState) {
        for object in objects where !state.contains(object) { context.unregisterMergedObject(object) }
    }

    /// Sections from a matching cache file: faults for the cached keys, placed by the cached sort values,
    /// with the cached section names and index titles; for a windowed request also the rows around the
    /// window (unregistered faults). No query runs.
    private func restore(_ file: FetchedResultsCache.File, plan: FetchPlan) -> ([FetchedSection], FetchedWindow?)? {
        guard let coordinator = context.persistentStoreCoordinator, let identifier = try? coordinator.backend().identifier else { return nil }
        let width = plan.descriptors.count
        func rows(_ s: FetchedResultsCache.File.Section, registered: Bool) -> [FetchedEntry]? {
            guard s.keys.count == s.entities.count, s.keys.count == s.sortValues.count else { return nil }
            var rows: [FetchedEntry] = []
            rows.reserveCapacity(s.keys.count)
            for i in s.keys.indices {
                let keys = s.sortValues[i].compactMap(\.value)
                guard let entity = coordinator.managedObjectModel.entity(number: s.entities[i]), keys.count == width else { return nil }
                let id = NSManagedObjectID(entity: entity, key: .permanent(root: entity.layout.rootEntityID, pk: s.keys[i]),
                                           storeIdentifier: identifier)
                let object = registered ? context.object(with: id) : context.unregisteredFault(for: id)
                rows.append(FetchedEntry(object: object, section: s.name, keys: keys, tiebreak: s.keys[i]))
            }
            return rows
        }
        var result: [FetchedSection] = []
        for s in file.sections {
            guard let entries = rows(s, registered: true) else { return nil }
            result.append(FetchedSection(name: s.name, indexTitle: s.indexTitle, entries: entries))
        }
        guard plan.limit > 0 || plan.offset > 0 else { return (result, nil) }
        guard let outside = file.outside else { return nil }
        var all: [FetchedEntry] = []
        for s in outside.before { guard let r = rows(s, registered: false) else { return nil }; all += r }
        all += result.flatMap(\.entries)
        for s in outside.beyond { guard let r = rows(s, registered: false) else { return nil }; all += r }
        var window = FetchedWindow(offset: plan.offset, limit: plan.limit, order: order)
        window.append(edge: all, asked: outside.complete ? 0 : all.count)
        return (result, window)
    }

    /// Objects inserted here got store keys when saved. Their tiebreak becomes the key; relative order is
    /// unchanged (new keys are above every existing one and follow insertion order), so arrays stay sorted.
    private func adoptStoreKeys(_ note: Notification) {
        guard var state, let inserted = note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> else { return }
        for object in inserted {
            guard let old = state.entry(for: object), let pk = object.objectID.primaryKey else { continue }
            state.replace(old, with: FetchedEntry(object: object, section: old.section, keys: old.keys, tiebreak: pk))
        }
        self.state = state
        window?.adoptStoreKeys()
    }

    func entry(for object: NSManagedObject) -> FetchedEntry {
        let slots = keySlots(of: object.layout)
        var keys: [Value] = []
        keys.reserveCapacity(order.descriptors.count)
        for (descriptor, slot) in zip(order.descriptors, slots.sort) {
            // An attribute's value in place when key-value coding would give back an equal value (for
            // numbers, one that orders the same: `1` may come back a boolean), else through it.
            if let slot, let value = Self.sortKey(object.value(at: slot)) {
                keys.append(value)
            } else {
                keys.append((try? descriptor.sortValue(object)) ?? .null)
            }
        }
        var section = ""
        switch slots.section.map({ object.value(at: $0) }) {
        case .string(let name)?: section = name  // what key-value coding gives, printed as plain text
        case .null?: break
        default:
            if let path = sectionNameKeyPath, let v = try? KeyPathReader.value(of: object, keyPath: path), let any = flattenOptional(v) {
                section = PredicatePrinter.plainText(Value(any: any))
            }
        }
        let tiebreak = object.objectID.primaryKey ?? (Int64.max / 2 + Int64(object.insertionIndex))
        return FetchedEntry(object: object, section: section, keys: keys, tiebreak: tiebreak)
    }

    /// The slots ``entry(for:)`` reads for an object of `layout`.
    private func keySlots(of layout: EntityLayout) -> (sort: [Int?], section: Int?) {
        if let keySlots, keySlots.serial == layout.serial { return (keySlots.sort, keySlots.section) }
        func slot(_ key: String?) -> Int? {
            guard let key, KeyPathReader.isPlainKey(key), let slot = layout.slotByName[key], layout.relationship(slot) == nil else { return nil }
            return slot
        }
        // A decoded descriptor not allowed to evaluate reads through `sortValue`, which refuses it.
        let sort = order.descriptors.map { $0.archiveGate == nil ? slot($0.key) : nil }
        let found = (layout.serial, sort, slot(sectionNameKeyPath))
        keySlots = found
        return (found.1, found.2)
    }

    /// A slot's value as a sort key, when key-value coding would return a value that orders the same.
    private static func sortKey(_ value: Value) -> Value? {
        switch value {
        case .null, .string, .int, .double, .bool, .date, .decimal, .data, .uuid, .url: return value
        case .array, .set, .object: return nil
        }
    }

    func makeSections(_ sorted: [FetchedEntry]) throws -> [FetchedSection] {
        var result: [FetchedSection] = []
        var seen = Set<String>()
        for (i, e) in sorted.enumerated() {
            if result.last?.name == e.section {
                result[result.count - 1].entries.append(e)
                continue
            }
            guard seen.insert(e.section).inserted else {
                throw CoreDataError(NSCoreDataError, "The fetched object at index \(i) has an out of order section name '\(e.section)'. Objects must be sorted by section name'")
            }
            result.append(FetchedSection(name: e.section, indexTitle: title(for: e.section), entries: [e]))
        }
        return result
    }

    func title(for name: String) -> String? {
        if let delegate {
            notImplemented = false
            let t = delegate.controller(erased, sectionIndexTitleForSectionName: name)
            if !notImplemented { return t }
            notImplemented = false
        }
        return titleProvider?(name) ?? name.first.map { String($0).uppercased() }
    }

    func indexPath(of object: NSManagedObject) -> IndexPath? {
        guard let state, let e = state.entry(for: object) else { return nil }
        return state.indexPath(of: e)
    }

    // MARK: - Tracking

    /// Applies one `ObjectsDidChange` to the results and tells the delegate. Cost grows with the number
    /// of changed objects (binary searches and array inserts/removals), not with the number of results;
    /// with `fetchLimit`/`fetchOffset` also with the window (see ``processWindowed``).
    func process(_ note: Notification) {
        // `self.state` is read in place, never bound to a local: a second reference to its index would
        // make the first change copy the whole index (copy on write), an O(n) cost per change.
        guard state != nil, let plan, delegate != nil else { return }
        let info = note.userInfo ?? [:]
        let announced = info[AnnouncedChanges.userInfoKey] as? AnnouncedChanges
        if announced?.objects == nil, info[NSInvalidatedAllObjectsKey] != nil {
            // The context forgot every object: one of the two cases that fetch again.
            refetch(changed: [])
            return
        }
        let (inserted, announcedUpdates, deleted) = announced?.objects ?? (
            (info[NSInsertedObjectsKey] as? Set<NSManagedObject>) ?? [],
            ((info[NSUpdatedObjectsKey] as? Set<NSManagedObject>) ?? []).union((info[NSRefreshedObjectsKey] as? Set<NSManagedObject>) ?? []),
            (info[NSDeletedObjectsKey] as? Set<NSManagedObject>) ?? [])
        var updated = announcedUpdates
        let changedSlots = announced?.changedSlots ?? [:]
        let included = includedEntityIDs
        let root = plan.layout.root
        let ownKeys = keyPaths?.ownKeys ?? []
        func relevant(_ o: NSManagedObject) -> Bool { o.layout.root === root && included.contains(o.layout.entityID) }
        // A block predicate may read any key.
        func readsAny(_ slots: Set<Int>, _ layout: EntityLayout) -> Bool {
            plan.evaluatesInMemory || slots.contains { $0 < layout.properties.count && ownKeys.contains(layout.properties[$0].name) }
        }
        // Rows whose values read through a relationship changed (registered or not): evaluated like
        // changed rows, whatever their own changed keys.
        guard let related = rowsReadingRelatedChanges(updated: updated, deleted: deleted, announced: announced) else {
            // A changed key is read through a relationship without an inverse: the other case that fetches.
            refetch(changed: Set(updated.union(deleted).filter(relevant).map(ObjectIdentifier.init)))
            return
        }
        var madeForMerge = related.made
        let forced = Set(related.objects.map(ObjectIdentifier.init))
        updated.formUnion(related.objects)
        // Rows a merged save changed that this context never registered: they may match now. Every one is
        // evaluated, whatever keys the save changed: those are relative to what the saving context had
        // read, which need not be what this context last saw (a row deleted here can come back).
        for row in announced?.unregisteredUpdated ?? [] {
            let layout = row.id.entity.layout!
            guard layout.root === root, included.contains(layout.entityID) else { continue }
            let (object, isNew) = context.objectForMergedRow(row)
            if isNew { madeForMerge.append(object) }
            updated.insert(object)
        }
        // Those that did not enter the results are forgotten again (the context had not registered them).
        defer { if let state = self.state { forget(madeForMerge, unless: state) } }
        // Rows read from the store for this change are about to be evaluated: their to-many relationships
        // that the predicate reads are read together (`ANY zoos.name == …`), not one query per row.
        if plan.predicate != nil { context.readToManys(of: madeForMerge, keys: ownKeys) }
        let predicate = plan.predicate.map { NSPredicate(node: $0) }
        func matches(_ object: NSManagedObject) -> Bool {
            guard !deleted.contains(object), !object.isDeleted, object.managedObjectContext === context else { return false }
            return predicate.map { (try? $0.evaluate(validatingReader: object)) ?? false } ?? true
        }

        // Tested, not bound: binding the window would copy it (retaining its rows) for every change.
        if window != nil {
            let touched = inserted.union(updated).union(deleted).filter(relevant)
            let gone = (announced?.unregisteredDeleted ?? []).filter { included.contains($0.entity.layout.entityID) && $0.entity.layout.root === root }
            guard !touched.isEmpty || !gone.isEmpty else { return }
            processWindowed(window!, touched: touched, gone: gone, updated: Set(updated.filter(relevant).map(ObjectIdentifier.init)), matches: matches)
            return
        }

        // A list, not a table: `each` visits every object once.
        var changes: [(object: NSManagedObject, oldEntry: FetchedEntry?, entry: FetchedEntry?, updated: Bool)] = []
        changes.reserveCapacity(updated.count + inserted.count + deleted.count)
        // Each changed object once (no union of the three sets built for it).
        func each(_ body: (NSManagedObject) -> Void) {
            for object in updated where relevant(object) { body(object) }
            for object in inserted where relevant(object) && !updated.contains(object) { body(object) }
            for object in deleted where relevant(object) && !updated.contains(object) && !inserted.contains(object) { body(object) }
        }
        each { object in
            let id = ObjectIdentifier(object)
            let oldEntry = state!.entry(for: object)
            let isUpdate = updated.contains(object) && !inserted.contains(object)
            // An update of keys the request does not read (a to-many's other side, a note) cannot move or
            // filter the object: an update in place if shown, nothing otherwise.
            if isUpdate, !forced.contains(id), let slots = changedSlots[object.objectID], !readsAny(slots, object.layout) {
                if let oldEntry { changes.append((object, oldEntry, oldEntry, true)) }
                return
            }
            let isMatch = matches(object)
            guard oldEntry != nil || isMatch else { return }
            changes.append((object, oldEntry, isMatch ? entry(for: object) : nil, isUpdate))
        }
        guard !changes.isEmpty else { return }
        // One object moving within its section (the common edit) is shifted in place; its new place is
        // known then, without another search. Unless the delegate may receive whole old sections (the
        // difference form), the sections' list stays the one it was and is not copied for the delegate.
        if changes.count == 1, let only = changes.first, let from = only.oldEntry, let to = only.entry,
           from.section == to.section, let path = state!.indexPath(of: from) {
            let old = deliversWholeSections ? oldSectionsForDelegate(removing: [from]) : nil
            let movedTo = state!.move(from, at: path, to: to)
            // What the tracker would say of one object and no other change: an update where it stays, a
            // move where it goes; nothing for an object that was not updated (an insert shown already).
            var batch = ChangeTracker.Batch()
            if only.updated { batch.objects = [.init(type: movedTo == path ? .update : .move, object: only.object, old: path, new: movedTo)] }
            deliver(old: old, new: state!, batch: batch)
            return
        }
        // Every changed object leaves its old place and the ones that belong are placed again, in place
        // (the old sections stay as they were for the delegate: sections are values).
        let leaving = changes.compactMap(\.oldEntry)
        let oldSections = oldSectionsForDelegate(removing: leaving)
        let oldByName = Dictionary(uniqueKeysWithValues: oldSections.map { ($0.name, $0) })
        let places = state!.apply(removing: leaving, inserting: changes.compactMap(\.entry)) {
            oldByName[$0]?.indexTitle ?? title(for: $0)
        }
        let tracked = Dictionary(uniqueKeysWithValues: changes.map { c in
            let id = ObjectIdentifier(c.object)
            return (id, (old: places.old[id], new: places.new[id], updated: c.updated, object: c.object))
        })
        deliver(old: oldSections, new: state!, tracked: tracked)
    }

    /// Whether the delegate may receive every object of the old sections (the difference form, with no
    /// section key path, while the delegate's kind is not known or is that one).
    private var deliversWholeSections: Bool {
        sectionNameKeyPath == nil && (deliveryMode == nil || deliveryMode == .difference)
    }

    /// The sections as they are before `removed` leave them, as far as the delegate can see them: every
    /// object of every section when the difference delivery may list them (no section key path, and the
    /// delegate's kind not known yet or the difference method); otherwise each section's name and index
    /// title, with its objects only where all of them leave (a section deleted, whose info the delegate
    /// receives). Holding the objects of a section that stays would make the first removal from it copy
    /// the whole section (copy on write): a cost that grew with the section, not with the change.
    private func oldSectionsForDelegate(removing removed: [FetchedEntry]) -> [FetchedSection] {
        let sections = state!.sections
        if deliversWholeSections { return sections }
        var leaving: [String: Int] = [:]
        for e in removed { leaving[e.section, default: 0] += 1 }
        return sections.map { s in
            leaving[s.name] == s.entries.count ? s : FetchedSection(name: s.name, indexTitle: s.indexTitle, entries: [])
        }
    }

    /// A change under `fetchLimit`/`fetchOffset`, applied to the known rows (before the window, the
    /// window, the buffer beyond it) by binary search, found by object ID. Rows deleted or no longer
    /// matching leave; changed rows that match join unless they sort beyond every known row. The store is
    /// asked only when the window's last row became unknown: for the rows from the last known position
    /// to the end of the buffer, one query. The window is then the slice `[offset, offset + limit)`,
    /// compared with the old one (cost grows with the window, not with the results).
    private func processWindowed(_ window: FetchedWindow, touched: Set<NSManagedObject>, gone: [NSManagedObjectID],
                                 updated: Set<ObjectIdentifier>, matches: (NSManagedObject) -> Bool) {
        guard let state, let plan else { return }
        var window = window
        for id in gone { window.remove(id) }
        for object in touched { window.remove(object.objectID) }
        for object in touched where matches(object) { window.insert(entry(for: object)) }
        var registered: [NSManagedObject] = []
        if window.needsEdge {
            let asked = window.edgeLimit
            guard let edge = try? request.fetchObjects(in: context, plan: plan.range(offset: window.rows.count, limit: asked)) else { return }
            window.append(edge: edge.objects.map(entry(for:)), asked: asked)
            registered = edge.registered
        }
        window.trim()
        guard let sections = try? windowSections(&window) else { return }
        self.window = window
        deliver(old: state.sections, new: FetchedResultsState(sections, order: order), changed: updated)
        forget(registered, unless: self.state!)
    }

    /// Fetches the results again and delivers the difference: after the context's `reset()`, and for a
    /// change read through a relationship without an inverse (its rows cannot be found otherwise).
    /// Objects in `changed`, and those whose sort values or section changed, are reported as updated
    /// (moved if their order changed); the others keep their relative order.
    private func refetch(changed: Set<ObjectIdentifier>) {
        guard let plan, let state else { return }
        let fresh = try? fetchState(plan)
        if plan.limit > 0 || plan.offset > 0 {
            window = fresh?.1 ?? FetchedWindow(offset: plan.offset, limit: plan.limit, order: order)
        }
        let new = fresh?.0 ?? FetchedResultsState([], order: order)
        var changed = changed
        for section in new.sections {
            for e in section.entries {
                if let old = state.entry(for: e.object), old.section != e.section || old.keys != e.keys { changed.insert(ObjectIdentifier(e.object)) }
            }
        }
        deliver(old: state.sections, new: new, changed: changed)
    }

    /// Delivers a change computed from whole old and new states (reset, and the window's slices).
    private func deliver(old: [FetchedSection], new: FetchedResultsState, changed: Set<ObjectIdentifier>) {
        var oldPaths: [ObjectIdentifier: (IndexPath, NSManagedObject)] = [:]
        for (s, section) in old.enumerated() { for (r, e) in section.entries.enumerated() { oldPaths[ObjectIdentifier(e.object)] = (IndexPath(row: r, section: s), e.object) } }
        var newPaths: [ObjectIdentifier: (IndexPath, NSManagedObject)] = [:]
        for (s, section) in new.sections.enumerated() { for (r, e) in section.entries.enumerated() { newPaths[ObjectIdentifier(e.object)] = (IndexPath(row: r, section: s), e.object) } }
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
        deliver(old: old, new: new, tracked: tracked)
    }

    /// Delivers the changes of the objects in `tracked`, placed before in `old` and now in `next`.
    private func deliver(old: [FetchedSection], new next: FetchedResultsState,
                         tracked: [ObjectIdentifier: (old: IndexPath?, new: IndexPath?, updated: Bool, object: NSManagedObject)]) {
        let batch = ChangeTracker.changes(oldSections: old.map(\.name), newSections: next.sections.map(\.name), objects: tracked)
        deliver(old: old, new: next, batch: batch)
    }

    /// `old` `nil`: the sections are `next`'s own (a change within one section).
    private func deliver(old given: [FetchedSection]?, new next: FetchedResultsState, batch: ChangeTracker.Batch) {
        let new = next.sections
        let old = given ?? new
        state = next
        guard !batch.isEmpty, let delegate else { return }
        let view = erased
        if deliveryMode == nil || deliveryMode == .snapshot {
            notImplemented = false
            var snapshot = NSDiffableDataSourceSnapshot<String, NSManagedObjectID>()
            for section in new {
                snapshot.appendSections([section.name])
                snapshot.appendItems(section.entries.map(\.object.objectID), toSection: section.name)
            }
            snapshot.reloadItems(batch.objects.filter { $0.type == .update || $0.type == .move }.map(\.object.objectID))
            delegate.controller(view, didChangeContentWith: NSDiffableDataSourceSnapshotReference(snapshot))
            if !notImplemented { deliveryMode = .snapshot; return }
            deliveryMode = nil
        }
        if sectionNameKeyPath == nil, deliveryMode == nil || deliveryMode == .difference {
            notImplemented = false
            let oldIDs = old.flatMap { $0.entries.map(\.object.objectID) }
            let newIDs = new.flatMap { $0.entries.map(\.object.objectID) }
            delegate.controller(view, didChangeContentWith: newIDs.difference(from: oldIDs))
            if !notImplemented { deliveryMode = .difference; return }
        }
        deliveryMode = .classic
        delegate.controllerWillChangeContent(view)
        for change in batch.sections {
            let info: NSFetchedResultsSectionInfo = change.type == .delete ? old[change.index] : new[change.index]
            delegate.controller(view, didChange: info, atSectionIndex: change.index, for: change.type)
        }
        for change in batch.objects {
            delegate.controller(view, didChange: change.object, at: change.old, for: change.type, newIndexPath: change.new)
        }
        delegate.controllerDidChangeContent(view)
    }
}

import Foundation

/// The state of a fetched results controller, shared by the typed controller and the type-erased view
/// its delegate receives.
final class FetchedResultsCore: @unchecked Sendable {
    enum DeliveryMode { case snapshot, difference, classic }

    let request: NSFetchRequest<NSManagedObject>
    let context: NSManagedObjectContext
    let sectionNameKeyPath: String?
    let cacheName: String?
    weak var delegate: NSFetchedResultsControllerDelegate?
    var deliveryMode: DeliveryMode?
    var notImplemented = false
    var titleProvider: ((String) -> String?)?
    var sections: [FetchedSection]?
    private var observer: NSObjectProtocol?
    private var saveObserver: NSObjectProtocol?
    private(set) var plan: FetchPlan?
    /// Whether the last `performFetch()` took its sections from the cache file instead of the store.
    private(set) var reusedCache = false
    /// Each tracked object's entry (its placing values), to find its old position by binary search.
    private var entries: [ObjectIdentifier: FetchedEntry] = [:]
    private var relevantKeys: Set<String> = []

    init<T>(request: NSFetchRequest<T>, context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        let copy = NSFetchRequest<NSManagedObject>(entityName: request.entityName ?? request.entity?.name ?? "")
        copy.predicate = request.predicate
        copy.sortDescriptors = request.sortDescriptors
        copy.fetchLimit = request.fetchLimit
        copy.fetchOffset = request.fetchOffset
        copy.includesSubentities = request.includesSubentities
        copy.includesPendingChanges = request.includesPendingChanges
        copy.fetchBatchSize = request.fetchBatchSize
        self.request = copy
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
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
            throw CoreDataError(NSCoreDataError, "The controller's context has no persistent store coordinator")
        }
        let plan = try FetchPlan(request, model: model)
        if let path = sectionNameKeyPath, plan.layout.slotByName[path] == nil {
            throw CoreDataError(NSCoreDataError, "keypath \(path) not found in entity \(plan.entity.name ?? "?") (sectionNameKeyPath)",
                                userInfo: [NSValidationKeyErrorKey: path])
        }
        self.plan = plan
        relevantKeys = Set(descriptors.compactMap(\.key)).union(sectionNameKeyPath.map { [$0.split(separator: ".").first.map(String.init) ?? $0] } ?? [])
        if let predicate = plan.predicate { relevantKeys.formUnion(Self.keys(in: predicate)) }
        // The cache is consulted and written only when the results are the store's (no unsaved changes).
        let signature = cacheName != nil && !context.hasChanges ? FetchedResultsCache.signature(self, plan: plan) : nil
        if let cacheName, let signature, let file = FetchedResultsCache.read(cacheName, matching: signature),
           let cached = restore(file) {
            sections = cached
            reusedCache = true
        } else {
            let objects = try context.fetch(request)
            sections = try makeSections(objects.map(entry(for:)))
            reusedCache = false
            if let cacheName, let signature { FetchedResultsCache.write(cacheName, signature: signature, sections: sections!) }
        }
        entries = [:]
        for section in sections! { for e in section.entries { entries[ObjectIdentifier(e.object)] = e } }
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

    /// Sections from a matching cache file: faults for the cached keys, placed by the cached sort values,
    /// with the cached section names and index titles. No query runs.
    private func restore(_ file: FetchedResultsCache.File) -> [FetchedSection]? {
        guard let coordinator = context.persistentStoreCoordinator, let identifier = try? coordinator.backend().identifier else { return nil }
        let width = request.sortDescriptors?.count ?? 0
        var result: [FetchedSection] = []
        for s in file.sections {
            guard s.keys.count == s.entities.count, s.keys.count == s.sortValues.count else { return nil }
            var rows: [FetchedEntry] = []
            rows.reserveCapacity(s.keys.count)
            for i in s.keys.indices {
                let keys = s.sortValues[i].compactMap(\.value)
                guard let entity = coordinator.managedObjectModel.entity(number: s.entities[i]), keys.count == width else { return nil }
                let id = NSManagedObjectID(entity: entity, key: .permanent(root: entity.layout.root.layout.entityID, pk: s.keys[i]),
                                           storeIdentifier: identifier)
                rows.append(FetchedEntry(object: context.object(with: id), section: s.name, keys: keys, tiebreak: s.keys[i]))
            }
            result.append(FetchedSection(name: s.name, indexTitle: s.indexTitle, entries: rows))
        }
        return result
    }

    /// Objects inserted here got store keys when saved. Their tiebreak becomes the key; relative order is
    /// unchanged (new keys are above every existing one and follow insertion order), so arrays stay sorted.
    private func adoptStoreKeys(_ note: Notification) {
        guard let sections, let inserted = note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> else { return }
        var current = sections.map { ($0.name, $0.entries) }
        for object in inserted {
            let id = ObjectIdentifier(object)
            guard let old = entries[id], let pk = object.objectID.primaryKey,
                  let path = Self.locate(old, in: current, precedes: precedes) else { continue }
            let updated = FetchedEntry(object: object, section: old.section, keys: old.keys, tiebreak: pk)
            current[path.section].1[path.row] = updated
            sections[path.section].entries[path.row] = updated
            entries[id] = updated
        }
    }

    private static func keys(in node: PredicateNode) -> Set<String> {
        switch node {
        case .constant: return []
        case .and(let ps), .or(let ps): return ps.reduce(into: Set<String>()) { $0.formUnion(keys(in: $1)) }
        case .not(let p): return keys(in: p)
        case .comparison(let c): return keys(in: c.left).union(keys(in: c.right))
        }
    }

    private static func keys(in node: ExpressionNode) -> Set<String> {
        switch node {
        case .keyPath(let p): return [p.split(separator: ".").first.map(String.init) ?? p]
        case .function(_, let args), .aggregate(let args): return args.reduce(into: Set<String>()) { $0.formUnion(keys(in: $1)) }
        case .conditional(let p, let t, let f): return keys(in: p).union(keys(in: t)).union(keys(in: f))
        case .member(let b, _): return keys(in: b)
        default: return []
        }
    }

    func entry(for object: NSManagedObject) -> FetchedEntry {
        let descriptors = request.sortDescriptors ?? []
        let keys = descriptors.map { (try? $0.sortValue(object)) ?? .null }
        var section = ""
        if let path = sectionNameKeyPath, let v = try? KeyPathReader.value(of: object, keyPath: path), let any = flattenOptional(v) {
            section = PredicatePrinter.plainText(Value(any: any))
        }
        let tiebreak = object.objectID.primaryKey ?? (Int64.max / 2 + Int64(object.insertionIndex))
        return FetchedEntry(object: object, section: section, keys: keys, tiebreak: tiebreak)
    }

    /// Whether `a` sorts before `b` (descriptors, then the store's tiebreak).
    func precedes(_ a: FetchedEntry, _ b: FetchedEntry) -> Bool {
        for (i, d) in (request.sortDescriptors ?? []).enumerated() {
            var r = NSSortDescriptor.compare(a.keys[i], b.keys[i], collation: d.collation ?? .compare)
            if !d.ascending { r = r.reversed }
            if r != .orderedSame { return r == .orderedAscending }
        }
        return a.tiebreak < b.tiebreak
    }

    func makeSections(_ sorted: [FetchedEntry]) throws -> [FetchedSection] {
        var result: [FetchedSection] = []
        var seen = Set<String>()
        for (i, e) in sorted.enumerated() {
            if let last = result.last, last.name == e.section {
                last.entries.append(e)
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
        guard let sections, let e = entries[ObjectIdentifier(object)] else { return nil }
        return Self.locate(e, in: sections.map { ($0.name, $0.entries) }, precedes: precedes)
    }

    /// The position of an entry by binary search (section by name, row by sort order, object identity).
    static func locate(_ e: FetchedEntry, in sections: [(String, [FetchedEntry])], precedes: (FetchedEntry, FetchedEntry) -> Bool) -> IndexPath? {
        guard let s = sections.firstIndex(where: { $0.0 == e.section }) else { return nil }
        let rows = sections[s].1
        var lo = 0, hi = rows.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if precedes(rows[mid], e) { lo = mid + 1 } else { hi = mid }
        }
        guard lo < rows.count, rows[lo].object === e.object else {
            // Equal keys and tiebreaks cannot happen (tiebreaks are unique); fall back to a scan.
            return rows.firstIndex { $0.object === e.object }.map { IndexPath(row: $0, section: s) }
        }
        return IndexPath(row: lo, section: s)
    }

    // MARK: - Tracking

    /// Applies one `ObjectsDidChange` to the results and tells the delegate. Cost grows with the number
    /// of changed objects (binary searches and array inserts/removals), not with the number of results.
    func process(_ note: Notification) {
        guard let sections, let plan, delegate != nil else { return }
        let info = note.userInfo ?? [:]
        if info[NSInvalidatedAllObjectsKey] != nil {
            deliver(old: sections, new: (try? refetchedSections()) ?? [], changed: [])
            return
        }
        let inserted = (info[NSInsertedObjectsKey] as? Set<NSManagedObject>) ?? []
        var updated = ((info[NSUpdatedObjectsKey] as? Set<NSManagedObject>) ?? []).union((info[NSRefreshedObjectsKey] as? Set<NSManagedObject>) ?? [])
        let deleted = (info[NSDeletedObjectsKey] as? Set<NSManagedObject>) ?? []
        let changedSlots = (info[ChangedKeys.userInfoKey] as? ChangedKeys)?.slots ?? [:]
        let included = Set(plan.entityIDs ?? plan.layout.root.layout.entityIDs)
        let root = plan.layout.root
        func relevant(_ o: NSManagedObject) -> Bool { o.layout.root === root && included.contains(o.layout.entityID) }
        // Rows a merged save changed that this context never registered: they may match now.
        var madeForMerge: [NSManagedObject] = []
        let unregistered = info[UnregisteredChanges.userInfoKey] as? UnregisteredChanges
        for row in unregistered?.updated ?? [] {
            let layout = row.id.entity.layout!
            guard layout.root === root, included.contains(layout.entityID) else { continue }
            let (object, isNew) = context.objectForMergedRow(row)
            if isNew { madeForMerge.append(object) }
            updated.insert(object)
        }
        // Those that did not enter the results are forgotten again (the context had not registered them).
        defer { for object in madeForMerge where entries[ObjectIdentifier(object)] == nil { context.unregisterMergedObject(object) } }

        if plan.limit > 0 || plan.offset > 0 {
            // The window depends on objects outside it: ask the store (with pending changes) for the window.
            let touched = inserted.union(updated).union(deleted).filter(relevant)
            let windowShifted = unregistered?.deleted.contains { included.contains($0.entity.layout.entityID) && $0.entity.layout.root === root } ?? false
            guard !touched.isEmpty || windowShifted, let fresh = try? refetchedSections() else { return }
            deliver(old: sections, new: fresh, changed: Set(updated.filter(relevant).map(ObjectIdentifier.init)))
            return
        }

        var newSections = sections.map { ($0.name, $0.entries) }
        var changes: [ObjectIdentifier: (object: NSManagedObject, old: IndexPath?, entry: FetchedEntry?, updated: Bool)] = [:]
        let predicate = plan.predicate.map { NSPredicate(node: $0) }
        for object in deleted.union(inserted).union(updated) where relevant(object) {
            let id = ObjectIdentifier(object)
            let oldEntry = entries[id]
            let isUpdate = updated.contains(object) && !inserted.contains(object)
            if isUpdate, let oldEntry, let slots = changedSlots[object.objectID] {
                let names = Set(slots.compactMap { $0 < object.layout.attributes.count ? object.layout.attributes[$0].name : nil })
                if names.isDisjoint(with: relevantKeys) {
                    changes[id] = (object, Self.locate(oldEntry, in: newSections, precedes: precedes), oldEntry, true)
                    continue
                }
            }
            var matches = !deleted.contains(object) && !object.isDeleted && object.managedObjectContext === context
            if matches, let predicate { matches = (try? predicate.evaluate(validatingReader: object)) ?? false }
            let oldPath = oldEntry.flatMap { Self.locate($0, in: newSections, precedes: precedes) }
            guard oldPath != nil || matches else { continue }
            changes[id] = (object, oldPath, matches ? entry(for: object) : nil, isUpdate)
        }
        guard !changes.isEmpty else { return }
        // Remove every changed object from its old place (highest positions first), then place the ones
        // that belong by binary search.
        for (_, change) in changes.filter({ $0.value.old != nil }).sorted(by: { $0.value.old! > $1.value.old! }) {
            newSections[change.old!.section].1.remove(at: change.old!.row)
        }
        // Sections emptied above must not steer where new sections go.
        newSections.removeAll { $0.1.isEmpty }
        for (id, change) in changes {
            guard let e = change.entry else { entries[id] = nil; continue }
            entries[id] = e
            var s = newSections.firstIndex { $0.0 == e.section }
            if s == nil {
                var lo = 0, hi = newSections.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if let first = newSections[mid].1.first, precedes(first, e) { lo = mid + 1 } else { hi = mid }
                }
                newSections.insert((e.section, []), at: lo)
                s = lo
            }
            // In place: a local copy of the rows would copy the whole section for every object.
            var lo = 0, hi = newSections[s!].1.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if precedes(newSections[s!].1[mid], e) { lo = mid + 1 } else { hi = mid }
            }
            newSections[s!].1.insert(e, at: lo)
        }
        newSections.removeAll { $0.1.isEmpty }
        let old = sections
        let oldByName = Dictionary(uniqueKeysWithValues: old.map { ($0.name, $0) })
        let fresh = newSections.map { name, rows in
            FetchedSection(name: name, indexTitle: oldByName[name]?.indexTitle ?? title(for: name), entries: rows)
        }
        let tracked = changes.mapValues { (old: $0.old, new: $0.entry.flatMap { Self.locate($0, in: newSections, precedes: precedes) }, updated: $0.updated, object: $0.object) }
        deliver(old: old, new: fresh, tracked: tracked)
    }

    private func refetchedSections() throws -> [FetchedSection] {
        let objects = try context.fetch(request)
        let built = try makeSections(objects.map(entry(for:)))
        entries = [:]
        for section in built { for e in section.entries { entries[ObjectIdentifier(e.object)] = e } }
        return built
    }

    /// Delivers a change computed from whole old and new states (refetch paths: reset, limit/offset).
    private func deliver(old: [FetchedSection], new: [FetchedSection], changed: Set<ObjectIdentifier>) {
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
        deliver(old: old, new: new, tracked: tracked)
    }

    private func deliver(old: [FetchedSection], new: [FetchedSection],
                         tracked: [ObjectIdentifier: (old: IndexPath?, new: IndexPath?, updated: Bool, object: NSManagedObject)]) {
        let batch = ChangeTracker.changes(oldSections: old.map(\.name), newSections: new.map(\.name), objects: tracked)
        sections = new
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

import Foundation

/// The state of a fetched results controller, shared by the typed controller and the type-erased view
/// its delegate receives.
final class FetchedResultsCore: ContextChangeObserver, @unchecked Sendable {
    /// The caller's fetch request itself, shared with the typed controller. As Core Data documents, the
    /// request must not be modified after the controller was created (the controller reads it again
    /// in `performFetch()` and its cache signature).
    let request: any FetchedResultsRequest
    let context: NSManagedObjectContext
    let sectionNameKeyPath: String?
    let cacheName: String?
    /// Held weakly, as in Core Data. Another instance starts its ``form`` afresh.
    weak var delegate: NSFetchedResultsControllerDelegate? {
        didSet { if delegate !== oldValue { form = DelegateForm() } }
    }
    /// What the delegate implements of the methods that change the delivery, as learned so far.
    var form = DelegateForm()
    /// The open iterations of its change sequences (FetchedResultsSequences.swift).
    let listeners = LockedValue<[UUID: (FetchedResultsSnapshot) -> Void]>([:])
    /// Open (not `nil`) only while a method of ``DelegateForm`` is called for the first time for this
    /// delegate: the default implementations set it to `true`.
    var probe: Bool?
    var titleProvider: ((String) -> String?)?
    /// The sections shown and each shown object's entry; `nil` before `performFetch()`. Reading it settles
    /// a first screen (``firstScreen``) into the whole results; setting it drops the first screen.
    var state: FetchedResultsState? {
        get { settle(); return settledState }
        _modify { settle(); yield &settledState }
        set { firstScreen = nil; settledState = newValue }
    }
    private var settledState: FetchedResultsState?
    /// The first screen while the rest of the results loads (see ``FetchedFirstScreen``), else `nil`.
    private(set) var firstScreen: FetchedFirstScreen?
    /// For a request with `fetchLimit`/`fetchOffset`: the rows before the window, the window and a
    /// buffer beyond it, which every change is applied to (see ``FetchedWindow``).
    var window: FetchedWindow?
    /// Set when a store error kept a change from the results (see ``trackingFailed(_:)``): the next
    /// `performFetch()` fetches from the store, never from the cache file.
    var needsRefetch = false
    /// Set when a store error kept a change from the results, cleared when they are fetched again: the
    /// context's next change fetches them (see ``trackingFailed(_:)``), as does `performFetch()`.
    var isStale = false
    /// Whether the controller observes its context's changes (from its first `performFetch()` on).
    private var observing = false
    private(set) var plan: FetchPlan? { didSet { includedEntityIDs = Set(plan.map { $0.entityIDs ?? $0.layout.root.layout.entityIDs } ?? []) } }
    /// The entities whose objects the plan fetches, by number (read for every changed object).
    private(set) var includedEntityIDs: Set<Int> = []
    /// The one sort order, SQL's and memory's: the plan's descriptors.
    private(set) var order = FetchedOrder(descriptors: []) { didSet { keySlots = nil } }
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
        let section = try sectionNameKeyPath.map(plan.checkSectionNameKeyPath)
        self.plan = plan
        order = FetchedOrder(descriptors: plan.descriptors)
        keyPaths = RequestKeyPaths(plan, sectionNameKeyPath: section ?? nil, readsUnmodeledKeys: sectionNameKeyPath != nil && (section ?? nil) == nil)
        // The cache is consulted and written only when the results are the store's (no unsaved changes),
        // never for a block predicate (its text, `BLOCKPREDICATE(0x…)`, names an address, not a test), and
        // only when one store holds the entity (the cache file's keys name rows of one store).
        let holders = coordinator.storesHolding(plan.layout.rootEntityID)
        let oneStore = holders.count <= 1 && holders.first?.keyTag ?? 0 == 0
        let signature = try cacheName != nil && oneStore && !context.hasChanges && !plan.evaluatesInMemory
            ? FetchedResultsCache.signature(self, plan: plan) : nil
        if cacheName == nil, let screen = try startFirstScreen(plan) {
            settledState = nil
            window = nil
            firstScreen = screen
            reusedCache = false
        } else if !needsRefetch, let cacheName, let signature, let file = FetchedResultsCache.read(cacheName, matching: signature),
           let restored = try restore(file, plan: plan) {
            (state, window) = (FetchedResultsState(restored.0, order: order), restored.1)
            reusedCache = true
        } else {
            (state, window) = try fetchState(plan)
            reusedCache = false
            if let cacheName, let signature {
                FetchedResultsCache.write(cacheName, signature: signature, sections: state!.sections, outside: window)
            }
        }
        needsRefetch = false
        isStale = false
        if !observing {
            context.changeObservers.add(self)
            observing = true
        }
    }

    /// The first screen of a request with `fetchBatchSize` and no window (see ``FetchedFirstScreen``);
    /// `nil` when the store cannot serve one or the results could differ from what it would read (the
    /// context's ``NSManagedObjectContext/firstScreen(_:plan:groupedByFirstSort:)``), or when sections
    /// are not runs of the first sort's values (a section key path other than the first sort key, a
    /// string order other than `compare:`, a value other than a string or an integer).
    private func startFirstScreen(_ plan: FetchPlan) throws -> FetchedFirstScreen? {
        guard plan.batchSize > 0, plan.limit == 0, plan.offset == 0, !plan.evaluatesInMemory,
              plan.descriptors.allSatisfy({ $0.archiveGate == nil }) else { return nil }
        var grouped = false
        if let path = sectionNameKeyPath {
            guard let sort = plan.sorts.first, plan.descriptors.first?.key == path, sort.collation == .compare,
                  [.stringAttributeType, .integer16AttributeType, .integer32AttributeType, .integer64AttributeType].contains(sort.keyPath.attributeType)
            else { return nil }
            grouped = true
        }
        guard let found = try context.firstScreen(request.persistentStoreRequest, plan: plan, groupedByFirstSort: grouped) else { return nil }
        return FetchedFirstScreen(found.rows, objects: found.objects, plan: found.plan, grouped: grouped, core: self)
    }

    /// Turns a first screen into the whole results (``FetchedFirstScreen/settle(_:)``). Should the store
    /// fail to hand over the other rows, they are fetched again; should that fail too, the process stops
    /// with the store's errors, as a batched fetch's objects do (the controller's `object(at:)` and
    /// `sections` cannot throw, and a failed read is never shown as results).
    private func settle() {
        guard let screen = firstScreen else { return }
        firstScreen = nil
        do {
            settledState = try screen.settle(self)
        } catch {
            do {
                settledState = try fetchState(screen.plan).0
            } catch let again {
                fatalError("CoreData could not read the results of a fetched results controller past its first batch: \(error); reading them again failed: \(again)")
            }
        }
    }

    /// Runs the request (`performFetch()`, and after the context's reset). A request with
    /// `fetchLimit`/`fetchOffset` is run from position 0 to the end of the window's buffer, still one
    /// query; the rows outside the window that the fetch registered are unregistered again, as a fetch
    /// of the window alone would not have registered them.
    func fetchState(_ plan: FetchPlan) throws -> (FetchedResultsState, FetchedWindow?) {
        // Every object's sort values are read at once: in one query, not a batch query per
        // `fetchBatchSize` objects (the first screen, when it serves, reads them without objects).
        let plan = plan.unbatched()
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
    func windowSections(_ window: inout FetchedWindow) throws -> [FetchedSection] {
        for i in window.windowRange {
            let kept = window.rows[i].object
            let registered = context.registerKept(kept)
            if registered !== kept { window.replaceObject(at: i, with: registered) }
        }
        return try makeSections(Array(window.rows[window.windowRange]))
    }

    /// Unregisters the objects a fetch or a merge registered that are not shown.
    func forget(_ objects: [NSManagedObject], unless state: FetchedResultsState) {
        for object in objects where !state.contains(object) { context.unregisterMergedObject(object) }
    }

    /// Sections from a matching cache file: faults for the cached keys, placed by the cached sort values,
    /// with the cached section names and index titles; for a windowed request also the rows around the
    /// window (unregistered faults). No query runs.
    private func restore(_ file: FetchedResultsCache.File, plan: FetchPlan) throws -> ([FetchedSection], FetchedWindow?)? {
        guard let coordinator = context.persistentStoreCoordinator else { return nil }
        let identifier = try coordinator.storeIdentifier(root: plan.layout.rootEntityID)
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

    func entry(for object: NSManagedObject) -> FetchedEntry {
        let slots = keySlots(of: object.layout)
        var keys: [Value] = []
        keys.reserveCapacity(order.descriptors.count)
        for (descriptor, slot) in zip(order.descriptors, slots.sort) {
            // An attribute's value in place when key-value coding would give back an equal value (for
            // numbers, one that orders the same: `1` may come back a boolean), else through it. A key
            // path that cannot be read sorts as nil, as SQL's NULL (no store is read here: a fault's
            // row comes through the context, which handles its own errors).
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
        let tiebreak = object.objectKey.primaryKey ?? (Int64.max / 2 + Int64(object.insertionIndex))
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
        case .array, .set, .object, .collection: return nil
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

    func indexPath(of object: NSManagedObject) -> IndexPath? {
        if let path = firstScreen?.indexPath(of: object) { return path }
        guard let state, let e = state.entry(for: object) else { return nil }
        return state.indexPath(of: e)
    }
}

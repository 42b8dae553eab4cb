import Foundation

extension NSManagedObjectContext {
    /// Mirrors `fetch(_:)`. Predicate, sort, limit, offset, count, distinct and dictionary results run in
    /// SQL. With `includesPendingChanges` (the default), unsaved inserted objects that match are included,
    /// deleted ones excluded, and updated ones judged by their in-memory values, as Apple documents.
    /// Throws if a key is not in the model (naming entity and key) or the results are not `ResultType`.
    public func fetch<ResultType>(_ request: NSFetchRequest<ResultType>) throws -> [ResultType] {
        checkQueue("fetch(_:)")
        guard request.shouldRefreshRefetchedObjects, request.resultType == .managedObjectResultType else {
            return try fetch(request, preloaded: nil)
        }
        return try fetchRefreshingRefetched(request)
    }

    /// A fetch with `shouldRefreshRefetchedObjects`: each result that was registered here with its values
    /// before the fetch rereads its row from the store, its unsaved changes kept on top (as
    /// `refresh(_:mergeChanges: true)`); by default such an object keeps the values it had.
    private func fetchRefreshingRefetched<ResultType>(_ request: NSFetchRequest<ResultType>) throws -> [ResultType] {
        let loaded = Set(allRegisteredObjects.lazy.filter { !$0.isFault && !$0.isInserted }.map(ObjectIdentifier.init))
        let results = try fetch(request, preloaded: nil)
        for case let object as NSManagedObject in results where loaded.contains(ObjectIdentifier(object)) {
            refresh(object, mergeChanges: true)
        }
        return results
    }

    /// `fetch(_:)` in the context's read scope (its query generation), with what an asynchronous fetch
    /// read from the store in the background (`nil`: read it now).
    func fetch<ResultType>(_ request: NSFetchRequest<ResultType>, preloaded: PreloadedRows?) throws -> [ResultType] {
        if !retainsRegisteredObjects { registry.sweepIfDue() }
        var (plan, coordinator) = try prepare(request)
        let scope = try storeReadScope()
        plan.preloaded = preloaded
        if let preloaded, parent == nil {
            switch preloaded.content {
            case .dictionaries(let dictionaries): return try cast(dictionaries)
            case .count(let count) where !judgesInMemory(request, plan): return try cast([NSNumber(value: count)])
            default: break
            }
        }
        if request.resultType == .managedObjectResultType, parent == nil {
            // Typed here, so that the array needs no cast at all.
            if ResultType.self is NSManagedObject.Type,
               let lean = try leanFaults(request, plan: plan, coordinator: coordinator, scope, as: ResultType.self) {
                return lean
            }
            // A class-to-class array cast: much cheaper than casting each element from `Any`.
            let objects = try fetchObjects(request, plan: plan, coordinator: coordinator, scope)
            if let typed = objects as? [ResultType] { return typed }
            return try cast(objects)
        }
        if request.resultType == .dictionaryResultType {
            if !plan.moreKeyRoots.isEmpty {
                throw CoreDataError(NSPersistentStoreOperationError, "a fetch of entity \(plan.entity.name ?? "?") into dictionaries reads one store: several stores hold it; set the request's affectedStores to one of them (docs/Store.md, \"Overlapping configurations\")")
            }
            if plan.evaluatesInMemory {
                throw CoreDataError(NSCoreDataError, "a fetch of entity \(plan.entity.name ?? "?") into dictionaries cannot use a block predicate (NSPredicate(block:)): fetch objects or their IDs, or filter the dictionaries with filtered(using:)")
            }
            let dictionaries = try DictionaryFetch(plan: plan, request: request).run(on: coordinator, in: scope)
            // `NSFetchRequest<NSDictionary>`: the array is already of the result type (`as? [ResultType]`
            // would still check each element, the runtime's conditional array cast).
            if ResultType.self == NSDictionary.self { return unsafeBitCast(dictionaries, to: [ResultType].self) }
            if let typed = dictionaries as? [ResultType] { return typed }
            return try cast(dictionaries)
        }
        return try cast(try fetchResults(request, plan: plan, coordinator: coordinator, scope))
    }

    /// The managed objects `request` selects when run by `plan` (the request's own plan, or one with
    /// another offset and limit), pending changes included as the request says; and the objects this
    /// fetch registered anew, which a fetched results controller unregisters when it only needs their
    /// rows' places (the rows before and just beyond a `fetchOffset`/`fetchLimit` window).
    func fetchObjects<T>(_ request: NSFetchRequest<T>, plan: FetchPlan) throws -> (objects: [NSManagedObject], registered: [NSManagedObject]) {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        var plan = plan
        route(&plan, request, coordinator)
        newlyRegistered = []
        defer { newlyRegistered = nil }
        let objects: [NSManagedObject]
        if let parent {
            objects = try fetchThroughParent(parent, request, plan: plan)
            try prefetch(plan.prefetch, for: objects)
        } else {
            objects = try fetchObjects(request, plan: plan, coordinator: coordinator, try storeReadScope())
        }
        return (objects, newlyRegistered ?? [])
    }

    private func cast<ResultType>(_ results: [Any]) throws -> [ResultType] {
        if let typed = results as? [ResultType] { return typed }
        var typed: [ResultType] = []
        typed.reserveCapacity(results.count)
        for r in results {
            guard let t = r as? ResultType else {
                throw CoreDataError(NSCoreDataError, "The fetch request's results are \(type(of: r)), not \(ResultType.self): check its resultType and the entity's managedObjectClassName.")
            }
            typed.append(t)
        }
        return typed
    }

    /// Mirrors `count(for:)`: counts in SQL (`COUNT(*)`), including pending changes when the request does.
    public func count<ResultType>(for request: NSFetchRequest<ResultType>) throws -> Int {
        checkQueue("count(for:)")
        let (plan, coordinator) = try prepare(request)
        if let parent { return try fetchThroughParent(parent, request, plan: plan).count }
        if !plan.moreKeyRoots.isEmpty, !plan.evaluatesInMemory, plan.offset == 0, plan.limit == 0,
           !(request.includesPendingChanges && hasPendingChanges(for: plan)) {
            // Several stores hold the entity: each counts its rows.
            let scope = try storeReadScope()
            return try plan.perStore.reduce(0) { $0 + (try coordinator.countRows($1, in: scope)) }
        }
        if judgesInMemory(request, plan) {
            return try objectsMergingPendingChanges(plan, request).count
        }
        return try coordinator.countRows(plan, in: try storeReadScope())
    }

    /// On the context's queue: what the background step of an asynchronous fetch of `request` reads from
    /// the store (in the context's read scope, carried to the background), or `nil` when the whole fetch runs on the queue (a
    /// child context reads through its parent; a block predicate is judged in memory). Throws what the
    /// request has wrong (an unknown key).
    func storeReader<T>(for request: NSFetchRequest<T>) throws -> (() throws -> PreloadedRows?)? {
        let (plan, coordinator) = try prepare(request)
        guard parent == nil, !plan.evaluatesInMemory, plan.moreKeyRoots.isEmpty else { return nil }
        let scope = try storeReadScope()
        let resultType = request.resultType
        let withValues = resultType == .managedObjectResultType && request.includesPropertyValues
        let dictionaries = resultType == .dictionaryResultType ? DictionaryFetch(plan: plan, request: request) : nil
        return {
            if let dictionaries { return PreloadedRows(.dictionaries(try dictionaries.run(on: coordinator, in: scope))) }
            if resultType == .countResultType { return PreloadedRows(.count(try coordinator.countRows(plan, in: scope))) }
            if plan.batchSize > 0, resultType == .managedObjectResultType {
                let (pks, runs) = try coordinator.fetchKeys(plan, in: scope)
                return PreloadedRows(.keys(pks: pks, entityRuns: runs))
            }
            return PreloadedRows(.rows(try coordinator.fetchRows(plan, withValues: withValues, limited: true, in: scope), withValues: withValues))
        }
    }

    private func prepare<T>(_ request: NSFetchRequest<T>) throws -> (FetchPlan, NSPersistentStoreCoordinator) {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        var plan = try FetchPlan(request, model: coordinator.managedObjectModel, blocksInMemory: coordinator.evaluatesBlockPredicates)
        route(&plan, request, coordinator)
        return (plan, coordinator)
    }

    private func fetchResults<T>(_ request: NSFetchRequest<T>, plan: FetchPlan, coordinator: NSPersistentStoreCoordinator,
                                 _ scope: StoreReadScope) throws -> [Any] {
        switch request.resultType {
        case .countResultType:
            return [NSNumber(value: try count(for: request))]
        case _ where parent != nil:
            let objects = try fetchThroughParent(parent!, request, plan: plan)
            if request.resultType == .managedObjectIDResultType { return objects.map(\.objectID) }
            try prefetch(plan.prefetch, for: objects)
            return objects
        case .managedObjectIDResultType:
            if judgesInMemory(request, plan) {
                return try objectsMergingPendingChanges(plan, request).map(\.objectID)
            }
            let identifier = try coordinator.storeIdentifier(root: plan.keyRoot)
            let model = coordinator.managedObjectModel
            let rows = try coordinator.fetchRows(plan, withValues: false, limited: true, in: scope)
            return rows.compactMap { row -> NSManagedObjectID? in
                guard let entity = model.entity(number: row.entityID) else { return nil }
                let key = ObjectKey.permanent(root: plan.keyRoot, pk: row.pk)
                return registry[key]?.objectID ?? NSManagedObjectID(entity: entity, key: key, storeIdentifier: identifier)
            }
        default:
            return try fetchObjects(request, plan: plan, coordinator: coordinator, scope)
        }
    }

    /// A managed-object fetch of a context whose store is its coordinator's (no parent), with its
    /// relationships prefetched (a batched fetch prefetches each batch as it loads), read in `scope`.
    private func fetchObjects<T>(_ request: NSFetchRequest<T>, plan: FetchPlan, coordinator: NSPersistentStoreCoordinator,
                                 _ scope: StoreReadScope) throws -> [NSManagedObject] {
        if let lean = try leanFaults(request, plan: plan, coordinator: coordinator, scope, as: NSManagedObject.self) { return lean }
        if judgesInMemory(request, plan) {
            let objects = try objectsMergingPendingChanges(plan, request)
            try prefetch(plan.prefetch, for: objects)
            return objects
        }
        let identifier = try coordinator.storeIdentifier(root: plan.keyRoot)
        if plan.batchSize > 0 {
            // A fetched results controller's fetch (`leanFaults` declined it): it needs to know which
            // objects are new here.
            let rows = try coordinator.fetchRows(plan, withValues: false, limited: true, in: scope)
            let batch = FaultBatch(size: plan.batchSize, root: plan.keyRoot, keys: BatchKeys(rows.map(\.pk)),
                                   prefetch: plan.prefetch, context: self, storeIdentifier: identifier)
            registry.reserveCapacity(registry.count + rows.count)
            return try rows.enumerated().map { i, row in
                let object = try registeredObject(for: row, keepingFault: true, keyRoot: plan.keyRoot, storeIdentifier: identifier)
                if object.faultState.needsRow { object.faultState = .inBatch(batch, index: i) }
                return object
            }
        }
        let rows = try coordinator.fetchRows(plan, withValues: request.includesPropertyValues, limited: true, in: scope)
        registry.reserveCapacity(registry.count + rows.count)
        let objects = try rows.map { try registeredObject(for: $0, keepingFault: request.returnsObjectsAsFaults, keyRoot: plan.keyRoot, storeIdentifier: identifier) }
        try prefetch(plan.prefetch, for: objects)
        return objects
    }

    /// The bare faults of a batched fetch, or of a plain fetch into a context that holds no objects, as
    /// `T` (a managed object class); `nil` when neither applies: a fetched results controller's fetch
    /// (it tracks which objects are new), pending changes to merge, or, for a plain fetch, objects
    /// wanted whole or values not fetched.
    private func leanFaults<R, T>(_ request: NSFetchRequest<R>, plan: FetchPlan, coordinator: NSPersistentStoreCoordinator,
                                  _ scope: StoreReadScope, as _: T.Type) throws -> [T]? {
        guard newlyRegistered == nil else { return nil }
        let batched = plan.batchSize > 0
        guard batched || (registry.isEmpty && request.returnsObjectsAsFaults && request.includesPropertyValues) else { return nil }
        if judgesInMemory(request, plan) { return nil }
        return batched ? try batchFaults(plan, coordinator: coordinator, scope, as: T.self)
            : try heldRowFaults(plan, coordinator: coordinator, scope, as: T.self)
    }

    /// The objects of a batched fetch, as `T` (a managed object class): registered objects where the
    /// registry has them (uniquing), bare batch faults for the others, the batch registered with them
    /// (``ObjectRegistry/register(_:allNew:)``). Each run of rows of one entity checks the entity's class
    /// against `T` once, not each object; the batch keeps the result's own array. Into a context that
    /// holds no objects, the keys after the first batch come as the store reads them
    /// (``NSPersistentStoreCoordinator/progressiveKeys(_:in:)``): no object needs its key to be made.
    private func batchFaults<T>(_ plan: FetchPlan, coordinator: NSPersistentStoreCoordinator, _ scope: StoreReadScope, as _: T.Type) throws -> [T] {
        let identifier = try coordinator.storeIdentifier(root: plan.keyRoot)
        if registry.isEmpty, let keys = try coordinator.progressiveKeys(plan, in: scope) {
            return try progressiveBatchFaults(plan, keys, identifier, model: coordinator.managedObjectModel, as: T.self)
        }
        let (pks, entityRuns) = try coordinator.fetchKeys(plan, in: scope)
        return try batchFaults(plan, pks: pks, entityRuns: entityRuns, identifier, model: coordinator.managedObjectModel, as: T.self)
    }

    /// The objects of the keys `pks` (in the plan's order, their entities as `entityRuns`), as `T`:
    /// registered objects where the registry has them, bare faults of one batch for the others.
    func batchFaults<T>(_ plan: FetchPlan, pks: [Int64], entityRuns: [EntityRun], _ identifier: String,
                        model: NSManagedObjectModel, as _: T.Type) throws -> [T] {
        let batch = FaultBatch(size: max(plan.batchSize, 1), root: plan.keyRoot, keys: BatchKeys(pks),
                               prefetch: plan.prefetch, context: self, storeIdentifier: identifier)
        let looksUp = !registry.isEmpty
        // `[NSManagedObject]` handed out as `[T]`, as in ``heldRowFaults(_:coordinator:_:as:)``.
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(pks.count)
        var entity = plan.entity
        var run = 0
        for i in pks.indices {
            if run < entityRuns.count, entityRuns[run].start == i {
                entity = try Self.entity(entityRuns[run].entityID, of: model, as: T.self)
                run += 1
            }
            if looksUp, let registered = registry[.permanent(root: batch.root, pk: pks[i])] {
                if registered.faultState.needsRow { registered.faultState = .inBatch(batch, index: i) }
                guard registered is T else {
                    throw CoreDataError(NSCoreDataError, "The fetch request's results are \(type(of: registered)), not \(T.self).")
                }
                objects.append(registered)
            } else {
                // The entity's class is a `T` (checked above).
                objects.append(NSManagedObject.makeBatchFault(entity: entity, batch: batch, index: i))
            }
        }
        batch.objects = objects
        registry.register(batch, allNew: !looksUp)
        return unsafeBitCast(objects, to: [T].self)
    }

    /// The bare faults of a batched fetch whose matches are all of its own entity into a context that
    /// holds no objects, whose keys `keys` delivers: all new, so none needs its key to be made.
    private func progressiveBatchFaults<T>(_ plan: FetchPlan, _ keys: BatchKeys, _ identifier: String,
                                           model: NSManagedObjectModel, as _: T.Type) throws -> [T] {
        let entity = try Self.entity(plan.layout.entityID, of: model, as: T.self)
        let batch = FaultBatch(size: plan.batchSize, root: plan.keyRoot, keys: keys,
                               prefetch: plan.prefetch, context: self, storeIdentifier: identifier)
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(keys.count)
        for i in 0..<keys.count { objects.append(NSManagedObject.makeBatchFault(entity: entity, batch: batch, index: i)) }
        batch.objects = objects
        registry.register(batch, allNew: true)
        return unsafeBitCast(objects, to: [T].self)
    }

    /// The objects of a plain fetch into a context that holds none, as `T` (a managed object class): bare
    /// faults holding the fetch's rows (``FaultBatch/rows``), registered as one group, their
    /// relationships prefetched. Each object's state (ID, values, snapshot) is made when it is first
    /// touched, as Core Data's faults read the row cache when they fire.
    private func heldRowFaults<T>(_ plan: FetchPlan, coordinator: NSPersistentStoreCoordinator, _ scope: StoreReadScope, as _: T.Type) throws -> [T] {
        let rows = try coordinator.fetchRows(plan, withValues: true, limited: true, in: scope)
        let batch = FaultBatch(size: max(rows.count, 1), root: plan.keyRoot, rows: rows, context: self,
                               storeIdentifier: try coordinator.storeIdentifier(root: plan.keyRoot))
        let model = coordinator.managedObjectModel
        // Built as `[NSManagedObject]` (each object moved in, no generic copy) and handed out as `[T]`:
        // every element's class was checked to be a `T` (a class), so the two arrays are the same memory.
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(rows.count)
        var entity = plan.entity
        var checked = -1
        for i in rows.indices {
            if rows[i].entityID != checked {
                entity = try Self.entity(rows[i].entityID, of: model, as: T.self)
                checked = rows[i].entityID
            }
            objects.append(NSManagedObject.makeBatchFault(entity: entity, batch: batch, index: i))
        }
        batch.objects = objects
        registry.register(batch, allNew: true)
        try prefetch(plan.prefetch, for: objects)
        return unsafeBitCast(objects, to: [T].self)
    }

    /// The entity of a row's entity number, whose class must be a `T` (the fetch's result type).
    private static func entity<T>(_ number: Int, of model: NSManagedObjectModel, as _: T.Type) throws -> NSEntityDescription {
        guard let entity = model.entity(number: number) else {
            throw CoreDataError(NSCoreDataError, "The store has a row of unknown entity number \(number)")
        }
        guard entity.layout.objectClass is T.Type else {
            throw CoreDataError(NSCoreDataError, "The fetch request's results are \(entity.layout.objectClass), not \(T.self): check its resultType and the entity's managedObjectClassName.")
        }
        return entity
    }

    /// Whether the request's objects are judged in memory (``objectsMergingPendingChanges(_:_:)``): it
    /// includes pending changes and there are some it may see, or its predicate holds a block.
    /// A fetch over several stores (overlapping configurations) is merged in memory too.
    func judgesInMemory<T>(_ request: NSFetchRequest<T>, _ plan: FetchPlan) -> Bool {
        plan.evaluatesInMemory || !plan.moreKeyRoots.isEmpty || (request.includesPendingChanges && hasPendingChanges(for: plan))
    }

    /// Whether unsaved changes touch the fetched entity's table, or a table its key paths read through
    /// relationships.
    func hasPendingChanges(for plan: FetchPlan) -> Bool {
        let root = plan.layout.root
        return inserted.contains { $0.layout.root === root }
            || deleted.values.contains { $0.layout.root === root }
            || touched.values.contains { $0.layout.root === root && $0.isUpdated }
            || hasRelatedPendingChanges(for: plan)
    }

    /// Whether unsaved changes touch a table the plan's key paths read through relationships
    /// (`classification.order` with a classification renamed): then the store's answer for unchanged
    /// objects may be stale too.
    func hasRelatedPendingChanges(for plan: FetchPlan) -> Bool {
        guard !plan.relatedRoots.isEmpty else { return false }
        let model = plan.entity.managedObjectModel
        func related(_ o: NSManagedObject) -> Bool {
            o.entity.managedObjectModel === model && plan.relatedRoots.contains(o.layout.rootEntityID)
        }
        return inserted.contains(where: related) || deleted.values.contains(where: related)
            || touched.values.contains { related($0) && $0.isUpdated }
    }

    /// The store's matches, minus deleted and changed objects, plus inserted and changed objects that
    /// match in memory; sorted in memory (same order as SQL: descriptors, then store key, then insertion),
    /// then offset and limit. With a limit, SQL's first `offset + limit + k` rows are enough, k being the
    /// rows SQL may place differently from memory (changed, deleted or re-judged here): the others keep
    /// SQL's order.
    ///
    /// Beyond Core Data: when unsaved changes touch objects the key paths read through relationships
    /// (a classification renamed, an animal moved to another zoo), the rows that read them are found
    /// through the inverse relationships (``rowsReadingUnsavedChanges(_:)``) and judged in memory too, so
    /// the answer reflects those changes; Core Data judges only changed objects of the fetched entity in
    /// memory. Should they not be found (a fetch behind a relationship without inverse failed), every row
    /// of the entity is judged in memory.
    ///
    /// A block predicate (the in-memory store only) judges every row in memory too: SQL reads them all,
    /// unfiltered. Without `includesPendingChanges`, the stored objects are judged as the context holds
    /// them and unsaved objects are left out.
    func objectsMergingPendingChanges<T>(_ plan: FetchPlan, _ request: NSFetchRequest<T>) throws -> [NSManagedObject] {
        let predicate = plan.predicate.map { NSPredicate(node: $0) }
        let pending = request.includesPendingChanges
        let traced = plan.evaluatesInMemory ? nil : hasRelatedPendingChanges(for: plan) ? rowsReadingUnsavedChanges(plan) : []
        let inMemory = traced == nil
        let readingChanges = (traced ?? []).filter { !$0.isDeleted && touched[ObjectIdentifier($0)] == nil && !$0.isInserted }
        let reread = Set(readingChanges.map(ObjectIdentifier.init))
        var sqlPlan = (inMemory && predicate != nil ? plan.withoutPredicate() : plan).range(offset: 0, limit: 0)
        // Sorted in memory below: the store need not order what it cannot order as memory does.
        if plan.evaluatesInMemory { sqlPlan = sqlPlan.withoutOrder() }
        if plan.limit > 0, !inMemory {
            let root = plan.layout.root
            let k = touched.values.count { $0.layout.root === root } + deleted.values.count { $0.layout.root === root } + reread.count
            sqlPlan = plan.range(offset: 0, limit: plan.offset + plan.limit + k)
        }
        var result: [NSManagedObject] = []
        let scope = try storeReadScope()
        for storePlan in sqlPlan.perStore {
            let coordinator = persistentStoreCoordinator!
            let identifier = try coordinator.storeIdentifier(root: storePlan.keyRoot)
            for row in try coordinator.fetchRows(storePlan, withValues: true, limited: true, in: scope) {
                let object = try registeredObject(for: row, keepingFault: request.returnsObjectsAsFaults, keyRoot: storePlan.keyRoot, storeIdentifier: identifier)
                let id = ObjectIdentifier(object)
                if pending, object.isDeleted || touched[id] != nil || reread.contains(id) { continue }
                if inMemory, let predicate, try !predicate.evaluate(validatingReader: object) { continue }
                result.append(object)
            }
        }
        let included = Set(plan.entityIDs ?? plan.layout.root.layout.entityIDs)
        let candidates = !pending ? [] : inserted.objects
            + touched.values.filter { !$0.isDeleted }.sorted { ($0.objectKey.primaryKey ?? 0) < ($1.objectKey.primaryKey ?? 0) }
            + readingChanges
        for object in candidates where included.contains(object.layout.entityID) {
            if let predicate, try !predicate.evaluate(validatingReader: object) { continue }
            result.append(object)
        }
        // Store key order first (as SQL's final ORDER BY Z_PK; with several stores, the stores in their
        // order, each by key), inserted objects last in insertion order.
        let storeRank = plan.storeRank
        result = result.enumerated().sorted { a, b in
            switch (a.element.objectKey.primaryKey, b.element.objectKey.primaryKey) {
            case let (x?, y?) where storeRank == nil: return x < y
            case let (x?, y?): return (storeRank!(a.element.objectID.key), x) < (storeRank!(b.element.objectID.key), y)
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return a.offset < b.offset
            }
        }.map(\.element)
        if !plan.descriptors.isEmpty { result = result.sorted(using: plan.descriptors) }
        if plan.offset > 0 { result = Array(result.dropFirst(plan.offset)) }
        if plan.limit > 0 { result = Array(result.prefix(plan.limit)) }
        return result
    }
}

import Foundation

extension NSManagedObjectContext {
    /// Mirrors `fetch(_:)`. Predicate, sort, limit, offset, count, distinct and dictionary results run in
    /// SQL. With `includesPendingChanges` (the default), unsaved inserted objects that match are included,
    /// deleted ones excluded, and updated ones judged by their in-memory values, as Apple documents.
    /// Throws if a key is not in the model (naming entity and key) or the results are not `ResultType`.
    public func fetch<ResultType>(_ request: NSFetchRequest<ResultType>) throws -> [ResultType] {
        checkQueue("fetch(_:)")
        let (plan, coordinator) = try prepare(request)
        if request.resultType == .managedObjectResultType, parent == nil {
            // A class-to-class array cast: much cheaper than casting each element from `Any`.
            let objects = try fetchObjects(request, plan: plan, coordinator: coordinator)
            if let typed = objects as? [ResultType] { return typed }
            return try cast(objects)
        }
        return try cast(try fetchResults(request, plan: plan, coordinator: coordinator))
    }

    /// The managed objects `request` selects when run by `plan` (the request's own plan, or one with
    /// another offset and limit), pending changes included as the request says; and the objects this
    /// fetch registered anew, which a fetched results controller unregisters when it only needs their
    /// rows' places (the rows before and just beyond a `fetchOffset`/`fetchLimit` window).
    func fetchObjects<T>(_ request: NSFetchRequest<T>, plan: FetchPlan) throws -> (objects: [NSManagedObject], registered: [NSManagedObject]) {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        newlyRegistered = []
        defer { newlyRegistered = nil }
        let objects = try parent.map { try fetchThroughParent($0, request, plan: plan) }
            ?? fetchObjects(request, plan: plan, coordinator: coordinator)
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
        if request.includesPendingChanges, hasPendingChanges(for: plan) {
            return try objectsMergingPendingChanges(plan, request).count
        }
        return try coordinator.countRows(plan)
    }

    private func prepare<T>(_ request: NSFetchRequest<T>) throws -> (FetchPlan, NSPersistentStoreCoordinator) {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        return (try FetchPlan(request, model: coordinator.managedObjectModel), coordinator)
    }

    private func fetchResults<T>(_ request: NSFetchRequest<T>, plan: FetchPlan, coordinator: NSPersistentStoreCoordinator) throws -> [Any] {
        switch request.resultType {
        case .countResultType:
            return [NSNumber(value: try count(for: request))]
        case .dictionaryResultType:
            return try DictionaryFetch(plan: plan, request: request).run(on: coordinator)
        case _ where parent != nil:
            let objects = try fetchThroughParent(parent!, request, plan: plan)
            return request.resultType == .managedObjectIDResultType ? objects.map(\.objectID) : objects
        case .managedObjectIDResultType:
            if request.includesPendingChanges, hasPendingChanges(for: plan) {
                return try objectsMergingPendingChanges(plan, request).map(\.objectID)
            }
            let identifier = try coordinator.backend().identifier
            let model = coordinator.managedObjectModel
            let rows = try coordinator.fetchRows(plan, withValues: false, limited: true)
            return rows.compactMap { row -> NSManagedObjectID? in
                guard let entity = model.entity(number: row.entityID) else { return nil }
                let key = ObjectKey.permanent(root: entity.layout.root.layout.entityID, pk: row.pk)
                return registry[key]?.objectID ?? NSManagedObjectID(entity: entity, key: key, storeIdentifier: identifier)
            }
        default:
            return try fetchObjects(request, plan: plan, coordinator: coordinator)
        }
    }

    /// A managed-object fetch of a context whose store is its coordinator's (no parent).
    private func fetchObjects<T>(_ request: NSFetchRequest<T>, plan: FetchPlan, coordinator: NSPersistentStoreCoordinator) throws -> [NSManagedObject] {
        if request.includesPendingChanges, hasPendingChanges(for: plan) {
            return try objectsMergingPendingChanges(plan, request)
        }
        let identifier = try coordinator.backend().identifier
        if plan.batchSize > 0 {
            let rows = try coordinator.fetchRows(plan, withValues: false, limited: true)
            let batch = FaultBatch(size: plan.batchSize, root: plan.layout.root.layout.entityID, primaryKeys: rows.map(\.pk))
            registry.reserveCapacity(registry.count + rows.count)
            return try rows.enumerated().map { i, row in
                let object = try registeredObject(for: row, keepingFault: true, storeIdentifier: identifier)
                if object.faultState.needsRow { object.faultState = .inBatch(batch, index: i) }
                return object
            }
        }
        let rows = try coordinator.fetchRows(plan, withValues: request.includesPropertyValues, limited: true)
        registry.reserveCapacity(registry.count + rows.count)
        return try rows.map { try registeredObject(for: $0, keepingFault: request.returnsObjectsAsFaults, storeIdentifier: identifier) }
    }

    /// Whether unsaved changes touch the fetched entity's table, or objects that the request's key paths
    /// read through relationships (``rowsReadingUnsavedChanges(_:)``).
    func hasPendingChanges(for plan: FetchPlan) -> Bool {
        let root = plan.layout.root
        if inserted.values.contains(where: { $0.layout.root === root })
            || deleted.values.contains(where: { $0.layout.root === root })
            || touched.values.contains(where: { $0.layout.root === root && $0.isUpdated }) { return true }
        guard !touched.isEmpty || !deleted.isEmpty else { return false }
        let keyPaths = RequestKeyPaths(plan)
        guard keyPaths.readsRelatedObjects else { return false }
        return touched.values.contains { $0.isUpdated && !keyPaths.relatedKeys(of: $0.entity).isEmpty }
            || deleted.values.contains { !keyPaths.relatedKeys(of: $0.entity).isEmpty }
    }

    /// The store's matches, minus deleted and changed objects (and objects whose values read through
    /// relationships changed), plus inserted and changed objects that match in memory; sorted in memory (same order as SQL: descriptors, then store key, then insertion),
    /// then offset and limit.
    func objectsMergingPendingChanges<T>(_ plan: FetchPlan, _ request: NSFetchRequest<T>) throws -> [NSManagedObject] {
        let readingChanges = rowsReadingUnsavedChanges(plan).filter { !$0.isDeleted && touched[ObjectIdentifier($0)] == nil && !$0.isInserted }
        let reread = Set(readingChanges.map(ObjectIdentifier.init))
        // With a limit, SQL's first `offset + limit + k` rows are enough, k being the rows SQL may place
        // differently from memory (changed, deleted or reading changes here): the others keep SQL's order.
        var sqlPlan = plan.range(offset: 0, limit: 0)
        if plan.limit > 0 {
            let root = plan.layout.root
            let k = touched.values.count { $0.layout.root === root } + deleted.values.count { $0.layout.root === root } + reread.count
            sqlPlan = plan.range(offset: 0, limit: plan.offset + plan.limit + k)
        }
        let rows = try persistentStoreCoordinator!.fetchRows(sqlPlan, withValues: true, limited: true)
        var result: [NSManagedObject] = []
        for row in rows {
            let object = try registeredObject(for: row, keepingFault: request.returnsObjectsAsFaults)
            let id = ObjectIdentifier(object)
            if object.isDeleted || touched[id] != nil || reread.contains(id) { continue }
            result.append(object)
        }
        let included = Set(plan.entityIDs ?? plan.layout.root.layout.entityIDs)
        let predicate = plan.predicate.map { NSPredicate(node: $0) }
        let candidates = insertedInOrder()
            + touched.values.filter { !$0.isDeleted }.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
            + readingChanges
        for object in candidates where included.contains(object.layout.entityID) {
            if let predicate, try !predicate.evaluate(validatingReader: object) { continue }
            result.append(object)
        }
        // Store key order first (as SQL's final ORDER BY Z_PK), inserted objects last in insertion order.
        result = result.enumerated().sorted { a, b in
            switch (a.element.objectID.primaryKey, b.element.objectID.primaryKey) {
            case let (x?, y?): return x < y
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

/// A dictionary-result fetch: `propertiesToFetch` (attribute names, attribute descriptions, or
/// expression descriptions such as `max:(price)`), `returnsDistinctResults`, `propertiesToGroupBy`.
/// Keys whose value is `nil` are left out of each dictionary, as in Core Data.
struct DictionaryFetch {
    let plan: FetchPlan
    let properties: [Any]
    let distinct: Bool
    let groupBy: [Any]?

    init<T>(plan: FetchPlan, request: NSFetchRequest<T>) {
        self.plan = plan
        self.properties = request.propertiesToFetch ?? plan.layout.properties.filter { $0 is NSAttributeDescription && !$0.isTransient }.map(\.name)
        self.distinct = request.returnsDistinctResults
        self.groupBy = request.propertiesToGroupBy
    }

    /// Each property as a column of the store's fetch, with the key it has in the dictionaries.
    private func column(_ property: Any) throws -> (key: String, column: DictionaryColumns.Column) {
        let layout = plan.layout
        let entityName = plan.entity.name ?? "?"
        if let expression = property as? NSExpressionDescription {
            guard let e = expression.expression, case .function(let name, let args) = e.node, args.count == 1,
                  ["sum:", "min:", "max:", "average:", "count:"].contains(name),
                  case .keyPath(let key) = args[0], let slot = layout.slotByName[key], layout.columns[slot] != nil else {
                throw CoreDataError(NSCoreDataError, "unsupported expression in propertiesToFetch of \(entityName): \(expression.expression?.description ?? "nil")")
            }
            return (expression.name, .aggregate(function: name, slot: slot, type: expression.expressionResultType))
        }
        let name = (property as? NSPropertyDescription)?.name ?? (property as? String) ?? ""
        guard let slot = layout.slotByName[name] else {
            throw CoreDataError(NSCoreDataError, "keypath \(name) not found in entity \(entityName) (propertiesToFetch)")
        }
        guard layout.columns[slot] != nil else {
            throw CoreDataError(NSCoreDataError, "transient property \(name) of entity \(entityName) cannot be fetched into a dictionary")
        }
        return (name, .attribute(slot: slot))
    }

    func run(on coordinator: NSPersistentStoreCoordinator) throws -> [Any] {
        let resolved = try properties.map(column)
        let groupSlots = try groupBy.map { try $0.map { p -> Int in
            guard case .attribute(let slot) = try column(p).column else { throw CoreDataError(NSCoreDataError, "propertiesToGroupBy takes attributes") }
            return slot
        } }
        let rows = try coordinator.fetchColumns(plan, DictionaryColumns(columns: resolved.map(\.column), distinct: distinct, groupBy: groupSlots))
        // Keys are made once per fetch; each row is one NSDictionary built from arrays, the cheapest
        // construction Foundation offers on Linux (no per-key insertion into a mutable dictionary).
        let keys: [NSString] = resolved.map { NSString(string: $0.key) }
        return rows.map { row in
            var objects: [AnyObject] = [], present: [NSString] = []
            objects.reserveCapacity(row.count)
            present.reserveCapacity(row.count)
            for (i, value) in row.enumerated() {
                guard let object = Self.object(value) else { continue }
                objects.append(object)
                present.append(keys[i])
            }
            return NSDictionary(objects: objects, forKeys: present)
        }
    }

    /// A value as a Foundation object (`NSString`, `NSNumber`, …, as Core Data's dictionaries hold), or
    /// `nil` for a nil value (left out of the dictionary).
    private static func object(_ value: Value) -> AnyObject? {
        switch value {
        case .null: return nil
        case .string(let s): return NSString(string: s)
        case .int(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .bool(let b): return NSNumber(value: b)
        case .decimal(let d): return NSDecimalNumber(decimal: d)
        case .date(let d): return NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
        case .data(let d): return NSData(data: d)
        default: return value.anyValue.map { $0 as AnyObject }
        }
    }
}

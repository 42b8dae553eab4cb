import Foundation

extension NSManagedObjectContext {
    /// A fetched results controller's first screen: the store's counts and first batch now, its other rows
    /// later (``NSPersistentStoreCoordinator/progressiveRows(_:groupedByFirstSort:in:)``), with the first
    /// batch's objects registered here with their values; and the plan as routed to the store. `nil`
    /// when the results could differ from the store's (a child context, unsaved changes the request's
    /// rows may see, a predicate judged in memory, several stores) or the store does not serve it: the
    /// controller then fetches every object first.
    func firstScreen(_ request: NSPersistentStoreRequest, plan: FetchPlan, groupedByFirstSort: Bool) throws
        -> (rows: ProgressiveRows, objects: [NSManagedObject], plan: FetchPlan)? {
        guard parent == nil, let coordinator = persistentStoreCoordinator else { return nil }
        var plan = plan
        route(&plan, request, coordinator)
        guard !plan.evaluatesInMemory, plan.moreKeyRoots.isEmpty, !hasPendingChanges(for: plan),
              let rows = try coordinator.progressiveRows(plan, groupedByFirstSort: groupedByFirstSort, in: try storeReadScope())
        else { return nil }
        let identifier = try coordinator.storeIdentifier(root: plan.keyRoot)
        let objects = try rows.first.map {
            try registeredObject(for: $0, keepingFault: false, keyRoot: plan.keyRoot, storeIdentifier: identifier)
        }
        return (rows, objects, plan)
    }

    /// The objects of a first screen's rows, in order: registered ones where the registry has them (the
    /// first batch's among them), bare faults of one batch (`fetchBatchSize` rows a query) for the others.
    func firstScreenObjects(_ rows: [ProgressiveRows.Row], plan: FetchPlan) throws -> [NSManagedObject] {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        var pks: [Int64] = []
        var runs: [EntityRun] = []
        pks.reserveCapacity(rows.count)
        for row in rows {
            if runs.last?.entityID != row.entityID { runs.append(EntityRun(start: pks.count, entityID: row.entityID)) }
            pks.append(row.pk)
        }
        return try batchFaults(plan, pks: pks, entityRuns: runs, try coordinator.storeIdentifier(root: plan.keyRoot),
                               model: coordinator.managedObjectModel, as: NSManagedObject.self)
    }
}

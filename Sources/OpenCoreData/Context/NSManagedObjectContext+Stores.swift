import Foundation

/// Which store a context's objects go to and come from when several stores hold their entity
/// (overlapping configurations): inserts go to the store `assign(_:to:)` chose, else to the first store
/// added that holds the entity, as Core Data documents; fetches read every store the request reaches.
extension NSManagedObjectContext {
    /// The key root (hierarchy and store tag) an inserted object is saved under: its permanent key's
    /// (`obtainPermanentIDs`), else its assigned store's, else the first store's that holds it.
    func insertKeyRoot(_ object: NSManagedObject, _ coordinator: NSPersistentStoreCoordinator) -> Int {
        if case .permanent(let root, _) = object.objectID.key { return root }
        let root = object.layout.rootEntityID
        if let store = assignedStores[ObjectIdentifier(object)] { return ObjectKey.keyRoot(root, tag: store.keyTag) }
        return coordinator.defaultKeyRoot(root)
    }

    /// Points `plan` at the stores `request` reaches that hold its entity: `readsStore` false when none,
    /// the first one's key root, and the others' (``FetchPlan/moreKeyRoots``) when there are several.
    func route(_ plan: inout FetchPlan, _ request: NSPersistentStoreRequest, _ coordinator: NSPersistentStoreCoordinator) {
        let root = plan.layout.rootEntityID
        let keyRoots = coordinator.storesHolding(root).filter { request.reaches($0) }.map { ObjectKey.keyRoot(root, tag: $0.keyTag) }
        plan.readsStore = !keyRoots.isEmpty
        plan.keyRoot = keyRoots.first ?? root
        plan.moreKeyRoots = Array(keyRoots.dropFirst())
        // A store that cannot evaluate the plan's predicate or sorts as memory does (PostgreSQL's string
        // operations) has its rows judged and sorted here; a dictionary fetch goes to the store, which
        // says what it cannot evaluate.
        if !plan.evaluatesInMemory, (request as? ErasedFetchRequest)?.resultType != .dictionaryResultType {
            plan.evaluatesInMemory = coordinator.storesHolding(root).contains { request.reaches($0) && $0.backend.needsEvaluationInMemory(plan) }
        }
    }
}

extension FetchPlan {
    /// The plan for each store it reads: itself, then one for each of ``moreKeyRoots``.
    var perStore: [FetchPlan] {
        [self] + moreKeyRoots.map { root in
            var plan = self
            plan.keyRoot = root
            plan.moreKeyRoots = []
            return plan
        }
    }

    /// The place of an object's store among the stores the plan reads (by its key's root), for ordering
    /// rows of several stores; `nil` when the plan reads one store.
    var storeRank: ((ObjectKey) -> Int)? {
        guard !moreKeyRoots.isEmpty else { return nil }
        let ranks = Dictionary(([keyRoot] + moreKeyRoots).enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return { key in
            guard case .permanent(let root, _) = key else { return 0 }
            return ranks[root] ?? 0
        }
    }
}

import Foundation

/// A fetch request resolved against the model: the entity and the subentities it includes, every key
/// path checked (an unknown key throws, naming the entity and the key), variables bound, sort keys
/// mapped to columns. Everything after this step works on model facts, not strings.
package struct FetchPlan {
    /// A sort descriptor resolved against the model: a single-valued key path (an attribute, through
    /// to-one relationships if any, or a to-many's `@count` or aggregate).
    struct Sort {
        let keyPath: ResolvedKeyPath
        let collation: StringCollation
        let ascending: Bool
        let isString: Bool
    }

    let entity: NSEntityDescription
    let layout: EntityLayout
    /// The `Z_ENT` values to include; `nil` when every row of the table qualifies.
    let entityIDs: [Int]?
    /// The predicate; `nil` for none.
    private(set) var predicate: PredicateNode?
    /// The predicate's key paths, resolved against the model when the plan was made (the SQL translator
    /// reads them here rather than resolving them again; ``RequestKeyPaths`` takes what the fetched
    /// object reads from them).
    let keyPaths: PredicateKeyPaths
    /// Whether the predicate holds a block (`NSPredicate(block:)`, anywhere in it), which only the
    /// in-memory store accepts, or the store cannot evaluate the predicate or sorts as memory does
    /// (``StoreBackend/needsEvaluationInMemory(_:)``): the fetch reads every row of the entity and
    /// evaluates the predicate on the objects, then sorts and applies offset and limit in memory, as Core
    /// Data's in-memory store does.
    var evaluatesInMemory: Bool
    /// The hierarchies (root entity numbers) whose rows the predicate and the sort descriptors read through
    /// relationships: unsaved changes there can change the answer.
    let relatedRoots: Set<Int>
    private(set) var sorts: [Sort]
    let descriptors: [NSSortDescriptor]
    private(set) var limit: Int
    private(set) var offset: Int
    private(set) var batchSize: Int
    /// `relationshipKeyPathsForPrefetching` as a tree of relationships (empty: nothing to prefetch).
    let prefetch: [PrefetchNode]
    /// Whether the store is searched: `false` when the request's `affectedStores` leave it out (the
    /// coordinator then answers with no rows without asking the store).
    var readsStore = true
    /// The key root of the store read (`ObjectKey.keyRoot`): the hierarchy's root entity number unless
    /// the store has a tag (several stores hold the hierarchy; a fetch reads each with its own plan).
    var keyRoot: Int
    /// The key roots of the further stores a fetch reads when several stores hold the entity (overlapping
    /// configurations): their rows are merged in memory. Empty in the usual case, one store.
    var moreKeyRoots: [Int] = []
    /// What an asynchronous fetch already read from the store for this plan (see ``PreloadedRows``);
    /// dropped by ``range(offset:limit:)`` and ``withoutPredicate()``, which ask for other rows.
    var preloaded: PreloadedRows?

    /// The same plan without its predicate (every row of the entity), for evaluating it in memory.
    func withoutPredicate() -> FetchPlan {
        var plan = self
        plan.predicate = nil
        plan.preloaded = nil
        return plan
    }

    /// The same plan without its store order (rows in key order), for sorting in memory by ``descriptors``.
    func withoutOrder() -> FetchPlan {
        var plan = self
        plan.sorts = []
        plan.preloaded = nil
        return plan
    }

    /// The same plan without `fetchBatchSize`: every object with its values in one query, for a reader
    /// that reads every object's values at once (a fetched results controller placing its objects).
    func unbatched() -> FetchPlan {
        var plan = self
        plan.batchSize = 0
        return plan
    }

    /// The same plan for another range of the results (offset `offset`, at most `limit` rows; 0: all).
    func range(offset: Int, limit: Int) -> FetchPlan {
        var plan = self
        plan.offset = offset
        plan.limit = limit
        plan.preloaded = nil
        return plan
    }

    /// Resolves `request` against `model`. `blocksInMemory`: the store evaluates block predicates in
    /// memory (the in-memory store); otherwise a block predicate throws before any SQL runs.
    init<T>(_ request: NSFetchRequest<T>, model: NSManagedObjectModel, blocksInMemory: Bool = false) throws {
        guard let name = request.entityName ?? request.entity?.name else {
            throw CoreDataError(NSCoreDataError, "A fetch request must have an entity.")
        }
        guard let entity = model.entitiesByName[name], let layout = entity.layout else {
            throw CoreDataError(NSCoreDataError, "The fetch request's entity \(name) is not in the model.")
        }
        self.entity = entity
        self.layout = layout
        self.keyRoot = layout.rootEntityID
        let ids = request.includesSubentities ? layout.entityIDs : [layout.entityID]
        let tableIDs = layout.root.layout.entityIDs
        self.entityIDs = ids.count == tableIDs.count ? nil : ids
        var related = Set<Int>()
        var hasBlock = false
        var keyPaths = PredicateKeyPaths()
        if let predicate = request.predicate {
            let node: PredicateNode
            do {
                node = try predicate.runnableNode()
            } catch let error as PredicateEvaluationError {
                throw CoreDataError(NSCoreDataError, "cannot fetch entity \(name): \(error)")
            }
            (keyPaths, related, hasBlock) = try FetchPlan.check(node, entity: entity, blocksInMemory: blocksInMemory)
            self.predicate = node
        } else {
            self.predicate = nil
        }
        self.keyPaths = keyPaths
        self.evaluatesInMemory = hasBlock
        self.descriptors = request.sortDescriptors ?? []
        let sortResolver = KeyPathResolver(use: .sortDescriptor)
        self.sorts = try descriptors.map { d in
            guard let key = d.key else {
                throw CoreDataError(NSCoreDataError, "keypath nil not found in entity \(name) (sort descriptor)")
            }
            let path = try sortResolver.single(key, from: layout, named: name)
            if case .object = path.terminal {
                throw CoreDataError(NSCoreDataError, "keypath \(key) of entity \(name) is a relationship: a sort descriptor of a fetch sorts by an attribute (\(key).name)",
                                    userInfo: [NSValidationKeyErrorKey: key])
            }
            guard let collation = d.collation else {
                throw CoreDataError(NSCoreDataError, "unsupported sort selector \(d.selector?.name ?? "") for key \(key) of entity \(name)")
            }
            return Sort(keyPath: path, collation: collation, ascending: d.ascending, isString: path.attributeType == .stringAttributeType)
        }
        self.relatedRoots = related.union(sorts.flatMap(\.keyPath.relatedRoots))
        guard request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0 else {
            throw CoreDataError(NSCoreDataError, "fetchLimit, fetchOffset and fetchBatchSize cannot be negative")
        }
        self.limit = request.fetchLimit
        self.offset = request.fetchOffset
        self.batchSize = request.fetchBatchSize
        self.prefetch = try PrefetchNode.resolve(request.relationshipKeyPathsForPrefetching ?? [], entity: entity)
    }
}

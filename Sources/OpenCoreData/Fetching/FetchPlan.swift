import Foundation

/// A fetch request resolved against the model: the entity and the subentities it includes, every key
/// path checked (an unknown key throws, naming the entity and the key), variables bound, sort keys
/// mapped to columns. Everything after this step works on model facts, not strings.
struct FetchPlan {
    struct Sort {
        let slot: Int
        let column: String
        let collation: StringCollation
        let ascending: Bool
        let isString: Bool
    }

    let entity: NSEntityDescription
    let layout: EntityLayout
    /// The `Z_ENT` values to include; `nil` when every row of the table qualifies.
    let entityIDs: [Int]?
    let predicate: PredicateNode?
    let sorts: [Sort]
    let descriptors: [NSSortDescriptor]
    private(set) var limit: Int
    private(set) var offset: Int
    let batchSize: Int
    /// `relationshipKeyPathsForPrefetching` as a tree of relationships (empty: nothing to prefetch).
    let prefetch: [PrefetchNode]

    /// The same plan for another range of the results (offset `offset`, at most `limit` rows; 0: all).
    func range(offset: Int, limit: Int) -> FetchPlan {
        var plan = self
        plan.offset = offset
        plan.limit = limit
        return plan
    }

    init<T>(_ request: NSFetchRequest<T>, model: NSManagedObjectModel) throws {
        guard let name = request.entityName ?? request.entity?.name else {
            throw CoreDataError(NSCoreDataError, "A fetch request must have an entity.")
        }
        guard let entity = model.entitiesByName[name], let layout = entity.layout else {
            throw CoreDataError(NSCoreDataError, "The fetch request's entity \(name) is not in the model.")
        }
        self.entity = entity
        self.layout = layout
        let ids = request.includesSubentities ? layout.entityIDs : [layout.entityID]
        let tableIDs = layout.root.layout.entityIDs
        self.entityIDs = ids.count == tableIDs.count ? nil : ids
        if let predicate = request.predicate {
            let node: PredicateNode
            do {
                node = try predicate.runnableNode()
            } catch let error as PredicateEvaluationError {
                throw CoreDataError(NSCoreDataError, "cannot fetch entity \(name): \(error)")
            }
            try FetchPlan.check(node, entity: entity)
            self.predicate = node
        } else {
            self.predicate = nil
        }
        self.descriptors = request.sortDescriptors ?? []
        self.sorts = try descriptors.map { d in
            guard let key = d.key, let slot = layout.slotByName[key] else {
                throw CoreDataError(NSCoreDataError, "keypath \(d.key ?? "nil") not found in entity \(name) (sort descriptor)")
            }
            guard let column = layout.columns[slot] else {
                throw CoreDataError(NSCoreDataError, "transient property \(key) of entity \(name) cannot be used in a sort descriptor of a fetch")
            }
            guard let collation = d.collation else {
                throw CoreDataError(NSCoreDataError, "unsupported sort selector \(d.selector?.name ?? "") for key \(key) of entity \(name)")
            }
            return Sort(slot: slot, column: column, collation: collation, ascending: d.ascending,
                        isString: layout.kinds[slot].attributeType == .stringAttributeType)
        }
        guard request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0 else {
            throw CoreDataError(NSCoreDataError, "fetchLimit, fetchOffset and fetchBatchSize cannot be negative")
        }
        self.limit = request.fetchLimit
        self.offset = request.fetchOffset
        self.batchSize = request.fetchBatchSize
        self.prefetch = try PrefetchNode.resolve(request.relationshipKeyPathsForPrefetching ?? [], entity: entity)
    }

    /// Every key path must name an attribute of the entity; variables must be bound.
    static func check(_ node: PredicateNode, entity: NSEntityDescription) throws {
        switch node {
        case .constant: return
        case .and(let ps), .or(let ps): for p in ps { try check(p, entity: entity) }
        case .not(let p): try check(p, entity: entity)
        case .comparison(let c):
            try check(c.left, entity: entity)
            try check(c.right, entity: entity)
        }
    }

    static func check(_ node: ExpressionNode, entity: NSEntityDescription) throws {
        switch node {
        case .keyPath(let path):
            let first = path.split(separator: ".").first.map(String.init) ?? path
            guard entity.layout.slotByName[first] != nil else {
                throw CoreDataError(NSCoreDataError, "keypath \(path) not found in entity \(entity.name ?? "?")",
                                    userInfo: [NSValidationKeyErrorKey: path])
            }
        case .variable(let name):
            throw CoreDataError(NSCoreDataError, "the variable $\(name) has no value: call withSubstitutionVariables(_:) before fetching")
        case .function(_, let args), .aggregate(let args): for a in args { try check(a, entity: entity) }
        case .member(let base, _): try check(base, entity: entity)
        case .conditional(let p, let t, let f):
            try check(p, entity: entity)
            try check(t, entity: entity)
            try check(f, entity: entity)
        case .subquery(let c, _, _): try check(c, entity: entity)
        case .constant, .evaluatedObject, .anyKey, .symbol: return
        }
    }
}

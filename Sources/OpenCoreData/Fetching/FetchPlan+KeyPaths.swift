import Foundation

/// How a comparison may use a key path on each side: one value (`classification.order == "x"`), a
/// collection through a to-many relationship (`ANY zoos.name`), or either (the collection side of
/// `IN`/`CONTAINS`: `%@ IN zoos`, `name IN "a text"`).
enum KeyPathRole {
    case single, collection, member

    /// The roles of a comparison's left and right sides.
    static func of(_ c: ComparisonNode) -> (left: KeyPathRole, right: KeyPathRole) {
        if c.modifier != .direct { return (.collection, .single) }
        switch c.op {
        case .in: return (.single, .member)
        case .contains: return (.member, .single)
        default: return (.single, .single)
        }
    }
}

extension FetchPlan {
    /// Every key path of a predicate resolved against the model, through relationships: an unknown key
    /// anywhere throws (naming the entity and the key), a to-many key path where one value is needed
    /// throws Core Data's "to-many key not allowed here", `ANY`/`ALL` need a to-many key path, a
    /// transient property throws; variables must be bound (`SUBQUERY` binds its own).
    /// A block predicate anywhere in it throws unless `blocksInMemory` (the in-memory store).
    /// Returns the key paths resolved (for the SQL translator), the hierarchies (root entity numbers)
    /// whose rows they read through relationships, and whether the predicate holds a block.
    static func check(_ node: PredicateNode, entity: NSEntityDescription,
                      blocksInMemory: Bool) throws -> (keyPaths: PredicateKeyPaths, relatedRoots: Set<Int>, hasBlock: Bool) {
        var check = PredicateKeyPathCheck(layout: entity.layout, entityName: entity.name ?? "?", blocksInMemory: blocksInMemory)
        try check.check(node)
        return (check.keyPaths, check.relatedRoots, check.hasBlock)
    }

    /// Checks a fetched results controller's `sectionNameKeyPath`: one value per object, through to-one
    /// relationships if any (`classification.order`); a transient attribute is fine, as in Core Data
    /// (section names are read from the objects, in memory).
    func checkSectionNameKeyPath(_ path: String) throws {
        _ = try KeyPathResolver(use: .sectionNameKeyPath).single(path, from: layout, named: entity.name ?? "?")
    }
}

/// The walk behind ``FetchPlan/check(_:entity:blocksInMemory:)``; it applies the rules the SQL
/// translator applies, and resolves each key path once for it.
private struct PredicateKeyPathCheck {
    let layout: EntityLayout
    let entityName: String
    /// Whether the store evaluates block predicates in memory (the in-memory store).
    let blocksInMemory: Bool
    /// The key paths resolved so far.
    var keyPaths = PredicateKeyPaths()
    var resolver: KeyPathResolver { keyPaths.resolver }
    /// Whether a block predicate was met.
    var hasBlock = false
    /// `SUBQUERY` variables in scope, innermost last, with the entity of their objects (`nil`: unknown).
    var variables: [(name: String, entity: (layout: EntityLayout, name: String)?)] = []
    /// The hierarchies the key paths cross into.
    var relatedRoots = Set<Int>()

    mutating func check(_ node: PredicateNode) throws {
        switch node {
        case .constant: return
        case .block(let block):
            // Core Data's SQLite store refuses block predicates (Apple: "Core Data supports block-based
            // predicates in the in-memory and atomic stores, but not in the SQLite-based store").
            hasBlock = true
            if blocksInMemory { return }
            throw CoreDataError(NSCoreDataError, "unimplemented SQL generation for predicate : (\(block.format)) in a fetch of entity \(entityName): a block predicate is evaluated in memory only; fetch without it and filter the results with filtered(using:)")
        case .and(let ps), .or(let ps): for p in ps { try check(p) }
        case .not(let p): try check(p)
        case .comparison(let c):
            let roles = KeyPathRole.of(c)
            try check(c.left, roles.left, modifier: c.modifier)
            try check(c.right, roles.right, modifier: c.modifier)
        }
    }

    private func variable(_ name: String) throws -> (layout: EntityLayout, name: String)? {
        guard let bound = variables.last(where: { $0.name == name }) else {
            throw CoreDataError(NSCoreDataError, "the variable $\(name) has no value: call withSubstitutionVariables(_:) before fetching")
        }
        return bound.entity
    }

    /// Checks an expression whose key paths play `role`; `modifier` names the quantifier of a collection
    /// (`nil`: a `SUBQUERY`'s).
    mutating func check(_ node: ExpressionNode, _ role: KeyPathRole, modifier: NSComparisonPredicate.Modifier? = .direct) throws {
        switch node {
        case .keyPath(let path):
            _ = try resolve(path, from: layout, named: entityName, role, modifier: modifier)
        case .member(.variable(let name), let path):
            guard let entity = try variable(name) else { return }
            _ = try resolve(path, from: entity.layout, named: entity.name, role, modifier: modifier)
        case .variable(let name):
            _ = try variable(name)
        case .subquery(let collection, let name, let predicate):
            var element: (layout: EntityLayout, name: String)?
            switch collection {
            case .keyPath(let path):
                element = try resolve(path, from: layout, named: entityName, .collection, modifier: nil)
            case .member(.variable(let outer), let path):
                if let entity = try variable(outer) {
                    element = try resolve(path, from: entity.layout, named: entity.name, .collection, modifier: nil)
                }
            default:
                try check(collection, .single)
            }
            variables.append((name, element))
            defer { variables.removeLast() }
            try check(predicate)
        case .member(let base, _): try check(base, .single)
        case .setOperation(_, let l, let r):
            try check(l, role, modifier: modifier)
            try check(r, role, modifier: modifier)
        case .function(_, let args), .aggregate(let args): for a in args { try check(a, .single) }
        case .conditional(let p, let t, let f):
            try check(p)
            try check(t, .single)
            try check(f, .single)
        case .constant, .evaluatedObject, .anyKey, .symbol: return
        }
    }

    /// Resolves a key path in its role; for a collection, the entity of its elements when they are objects.
    private mutating func resolve(_ text: String, from layout: EntityLayout, named name: String, _ role: KeyPathRole,
                                  modifier: NSComparisonPredicate.Modifier?) throws -> (layout: EntityLayout, name: String)? {
        let path = try keyPaths.resolve(text, from: layout, named: name)
        relatedRoots.formUnion(path.relatedRoots)
        switch role {
        case .single:
            guard path.isSingleValued else { throw resolver.toManyNotAllowed(text, name) }
            return nil
        case .member:
            _ = try resolver.collection(path, entityName: name)
            return nil
        case .collection:
            guard let collection = try resolver.collection(path, entityName: name) else {
                let quantifier = modifier == .all ? "ALL" : modifier == .any ? "ANY" : "SUBQUERY"
                throw CoreDataError(NSCoreDataError, "unsupported in a fetch of entity \(entityName): \(quantifier) needs a to-many key path, not \(text)",
                                    userInfo: [NSValidationKeyErrorKey: text])
            }
            guard collection.element.hops.isEmpty, case .object = collection.element.terminal else { return nil }
            let destination = collection.toMany.destination
            return (destination.layout, destination.name ?? "?")
        }
    }
}

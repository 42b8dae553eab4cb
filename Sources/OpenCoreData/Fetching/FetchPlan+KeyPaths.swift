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
    /// (section names are read from the objects, in memory). Returns it resolved (for
    /// ``RequestKeyPaths``), or `nil` when its first key is a `@KeyValue` property of the entity's class
    /// or a property of the object itself (`entity.name`; read by key-value coding, whatever it reads in turn).
    func checkSectionNameKeyPath(_ path: String) throws -> ResolvedKeyPath? {
        do {
            return try KeyPathResolver(use: .sectionNameKeyPath).single(path, from: layout, named: entity.name ?? "?")
        } catch {
            let first = String(path.prefix { $0 != "." })
            guard layout.slotByName[first] == nil,
                  ManagedClasses.keyValueProperty(of: layout.objectClass, named: first) != nil || ManagedObjectOwnKey(key: first) != nil
            else { throw error }
            return nil
        }
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
    /// `SUBQUERY` variables in scope, innermost last.
    var variables: [SubqueryVariable] = []
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

    private func variable(_ name: String) throws -> SubqueryVariable {
        guard let bound = variables.last(where: { $0.name == name }) else {
            throw CoreDataError(NSCoreDataError, "the variable $\(name) has no value: call withSubstitutionVariables(_:) before fetching")
        }
        return bound
    }

    /// Checks an expression whose key paths play `role`; `modifier` names the quantifier of a collection
    /// (`nil`: a `SUBQUERY`'s).
    mutating func check(_ node: ExpressionNode, _ role: KeyPathRole, modifier: NSComparisonPredicate.Modifier? = .direct) throws {
        switch node {
        case .keyPath(let path) where role == .single && PredicateTranslator.readsEntity(path, of: layout):
            return  // the Z_ENT column (PredicateTranslator)
        case .keyPath(let path):
            _ = try resolve(path, from: layout, named: entityName, prefix: [], role, modifier: modifier)
        case .member(.variable(let name), let path):
            let bound = try variable(name)
            if let entity = bound.entity {
                _ = try resolve(path, from: entity.layout, named: entity.name, prefix: bound.prefix, role, modifier: modifier)
            } else {
                bound.recordUnchecked(path, into: &keyPaths)
            }
        case .variable(let name):
            _ = try variable(name)
        case .subquery(let collection, let name, let predicate):
            variables.append(try bind(name, to: collection))
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
        case .fetch:
            throw CoreDataError(NSCoreDataError, "unsupported in a fetch of entity \(entityName): \(PredicatePrinter.format(node)) (an NSFetchRequestExpression runs a fetch of a context, which a store cannot run inside its query; evaluate the predicate in memory, or fetch those objects first and compare with IN %@)")
        }
    }

    /// A `SUBQUERY` variable `name` standing for the elements of `collection`: a key path of the fetched
    /// object or of an outer variable's objects; anything else is checked as a value, the variable's
    /// objects unknown.
    private mutating func bind(_ name: String, to collection: ExpressionNode) throws -> SubqueryVariable {
        switch collection {
        case .keyPath(let path):
            return try bind(name, to: path, from: layout, named: entityName, prefix: [])
        case .member(.variable(let outer), let path):
            let bound = try variable(outer)
            guard let entity = bound.entity else { return SubqueryVariable(name: name) }
            return try bind(name, to: path, from: entity.layout, named: entity.name, prefix: bound.prefix)
        default:
            try check(collection, .single)
            return SubqueryVariable(name: name)
        }
    }

    /// A `SUBQUERY` variable `name` standing for the elements of the collection `text` (read from
    /// objects of `layout` behind the relationships `prefix`).
    private mutating func bind(_ name: String, to text: String, from layout: EntityLayout, named entityName: String,
                               prefix: [ResolvedKeyPath.Hop]) throws -> SubqueryVariable {
        let (path, collection) = try resolve(text, from: layout, named: entityName, prefix: prefix, .collection, modifier: nil)
        guard let collection, case .object = collection.element.terminal else { return SubqueryVariable(name: name) }
        let reached = prefix + path.hops
        guard collection.element.hops.isEmpty else { return SubqueryVariable(name: name, prefix: reached, entity: nil) }
        let destination = collection.toMany.destination
        return SubqueryVariable(name: name, prefix: reached, entity: (destination.layout, destination.name ?? "?"))
    }

    /// Resolves a key path in its role and records it, read behind `prefix`; for a collection, its
    /// collection form.
    private mutating func resolve(_ text: String, from layout: EntityLayout, named name: String, prefix: [ResolvedKeyPath.Hop],
                                  _ role: KeyPathRole, modifier: NSComparisonPredicate.Modifier?) throws
        -> (path: ResolvedKeyPath, collection: CollectionKeyPath?) {
        let path = try keyPaths.resolve(text, from: layout, named: name)
        keyPaths.record(ReadKeyPath(prefix: prefix, path: path))
        relatedRoots.formUnion(path.relatedRoots)
        switch role {
        case .single:
            guard path.isSingleValued else { throw resolver.toManyNotAllowed(text, name) }
            return (path, nil)
        case .member:
            return (path, try resolver.collection(path, entityName: name))
        case .collection:
            guard let collection = try resolver.collection(path, entityName: name) else {
                let quantifier = modifier == .all ? "ALL" : modifier == .any ? "ANY" : "SUBQUERY"
                throw CoreDataError(NSCoreDataError, "unsupported in a fetch of entity \(entityName): \(quantifier) needs a to-many key path, not \(text)",
                                    userInfo: [NSValidationKeyErrorKey: text])
            }
            return (path, collection)
        }
    }
}

/// A `SUBQUERY` variable in scope in ``PredicateKeyPathCheck``.
private struct SubqueryVariable {
    let name: String
    /// The relationships from the fetched entity to the variable's objects (the collection's); empty
    /// when its elements are not objects (`SUBQUERY(zoos.name, $n, …)`) or the collection is not a key
    /// path.
    var prefix: [ResolvedKeyPath.Hop] = []
    /// The entity of its objects, against which the key paths read from the variable are checked;
    /// `nil`: unknown (not objects, or objects behind a to-many's key path: `SUBQUERY(zoos.city, $c, …)`).
    var entity: (layout: EntityLayout, name: String)? = nil

    /// Records, without checking it, a key path read from a variable whose entity is unknown but whose
    /// objects are known: `$c.name` in `SUBQUERY(zoos.city, $c, $c.name == …)`. The one tolerant piece
    /// kept from the controller's own resolution: the SQL translator refuses such a collection, so only a
    /// predicate evaluated in memory (beside a block, on the in-memory store) has one, and it must not
    /// start throwing; yet a change of a city's name still reaches the controller. A key path that does
    /// not resolve from the objects' entity is not recorded (the controller's former resolution also
    /// looked such keys up in subentities).
    func recordUnchecked(_ text: String, into keyPaths: inout PredicateKeyPaths) {
        guard let entity = prefix.last?.destination,
              let path = try? keyPaths.resolver.resolve(text, from: entity.layout, named: entity.name ?? "?") else { return }
        keyPaths.record(ReadKeyPath(prefix: prefix, path: path))
    }
}

import Foundation

/// What a request reads, resolved against the model (by a fetched results controller once in
/// `performFetch()`, by a fetch with unsaved changes each time): the keys of the fetched entity (predicate, sort descriptors, section key path), and
/// the keys of related entities that key paths read through relationships (`classification.order` reads
/// `order` of `Classification`), each with the way back to the fetched entity through the inverse
/// relationships. A change of a related object's key is traced back to the rows that read it
/// (``NSManagedObjectContext/rows(of:reading:)``); Core Data ignores such changes.
struct RequestKeyPaths {
    /// One step back towards the fetched entity: from an object of some entity to the objects of
    /// `entity` whose relationship `forward` (the one the key path went through) holds it — read
    /// through its `inverse` when it has one.
    struct Hop: Hashable {
        let entity: NSEntityDescription
        let forward: String
        let forwardIsToMany: Bool
        /// `nil` when the relationship the key path went through has no inverse: then the objects are
        /// found by a fetch of `entity` (`forward IN %@`).
        let inverse: String?

        static func == (a: Hop, b: Hop) -> Bool { a.entity === b.entity && a.forward == b.forward && a.inverse == b.inverse }
        func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(entity))
            hasher.combine(forward)
            hasher.combine(inverse)
        }
    }

    /// A key of a related entity that a key path reads, and the hops back to the fetched entity (the
    /// first hop leaves `entity`, the last arrives at the fetched entity).
    struct RelatedKey: Hashable {
        let entity: NSEntityDescription
        let key: String
        let back: [Hop]

        static func == (a: RelatedKey, b: RelatedKey) -> Bool { a.entity === b.entity && a.key == b.key && a.back == b.back }
        func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(entity))
            hasher.combine(key)
            hasher.combine(back)
        }
    }

    /// The fetched entity's keys the request reads (the first key of every key path).
    private(set) var ownKeys: Set<String> = []
    /// The related entities' keys the request reads, grouped by the root entity of their table (a
    /// changed object is matched against its own table's keys only).
    private(set) var related: [ObjectIdentifier: [RelatedKey]] = [:]

    /// Whether any key path reads through a relationship.
    var readsRelatedObjects: Bool { !related.isEmpty }

    init(entity: NSEntityDescription, predicate: PredicateNode?, sortKeys: [String], sectionNameKeyPath: String?) {
        var paths: [[String]] = []
        for key in sortKeys { paths.append(Self.components(key)) }
        if let sectionNameKeyPath { paths.append(Self.components(sectionNameKeyPath)) }
        if let predicate { Self.collect(predicate, bindings: [:], into: &paths) }
        var seen = Set<RelatedKey>()
        for path in paths where !path.isEmpty {
            ownKeys.insert(path[0])
            var current = entity
            var back: [Hop] = []
            for (i, key) in path.enumerated() {
                guard let (layout, slot) = Self.resolve(key, in: current) else { break }
                if i > 0 {
                    let r = RelatedKey(entity: current, key: key, back: back)
                    if seen.insert(r).inserted { related[ObjectIdentifier(current.layout.root), default: []].append(r) }
                }
                guard let r = layout.relationship(slot) else { break }
                back.insert(Hop(entity: current, forward: key, forwardIsToMany: r.isToMany, inverse: r.relationship.inverseRelationship?.name), at: 0)
                current = r.destination
            }
        }
    }

    /// What a fetch plan reads: its predicate and sort descriptors.
    init(_ plan: FetchPlan) {
        self.init(entity: plan.entity, predicate: plan.predicate, sortKeys: plan.descriptors.compactMap(\.key), sectionNameKeyPath: nil)
    }

    /// The related keys of `object`'s table that `object`'s entity has.
    func relatedKeys(of entity: NSEntityDescription) -> [RelatedKey] {
        guard let keys = related[ObjectIdentifier(entity.layout.root)] else { return [] }
        return keys.filter { entity.isKindOf(entity: $0.entity) }
    }

    /// The slot of `key` in `entity` or, for a key only a subentity declares, in that subentity.
    static func resolve(_ key: String, in entity: NSEntityDescription) -> (EntityLayout, Int)? {
        if let slot = entity.layout.slotByName[key] { return (entity.layout, slot) }
        for sub in entity.subentities { if let found = resolve(key, in: sub) { return found } }
        return nil
    }

    /// A key path's keys, collection operators (`@count`, `@sum`, …) left out.
    static func components(_ path: String) -> [String] {
        path.split(separator: ".").filter { !$0.hasPrefix("@") }.map(String.init)
    }

    private static func collect(_ node: PredicateNode, bindings: [String: [[String]]], into paths: inout [[String]]) {
        switch node {
        case .constant, .block: return
        case .and(let ps), .or(let ps): for p in ps { collect(p, bindings: bindings, into: &paths) }
        case .not(let p): collect(p, bindings: bindings, into: &paths)
        case .comparison(let c):
            paths += valuePaths(c.left, bindings: bindings, into: &paths)
            paths += valuePaths(c.right, bindings: bindings, into: &paths)
        }
    }

    /// The key paths (from the fetched object) an expression's value comes from; the key paths read on
    /// the way (conditions, subquery predicates) go to `paths`. Over-approximates: reading more than
    /// needed only costs work, never a missed change.
    private static func valuePaths(_ node: ExpressionNode, bindings: [String: [[String]]], into paths: inout [[String]]) -> [[String]] {
        switch node {
        case .keyPath(let p): return [components(p)]
        case .evaluatedObject: return [[]]
        case .variable(let name): return bindings[name] ?? []
        case .member(let base, let key):
            let keys = components(key)
            return valuePaths(base, bindings: bindings, into: &paths).map { $0 + keys }
        case .function(_, let args), .aggregate(let args):
            return args.flatMap { valuePaths($0, bindings: bindings, into: &paths) }
        case .conditional(let p, let t, let f):
            collect(p, bindings: bindings, into: &paths)
            return valuePaths(t, bindings: bindings, into: &paths) + valuePaths(f, bindings: bindings, into: &paths)
        case .subquery(let collection, let variable, let predicate):
            let elements = valuePaths(collection, bindings: bindings, into: &paths)
            var inner = bindings
            inner[variable] = elements
            collect(predicate, bindings: inner, into: &paths)
            return elements
        case .setOperation(_, let l, let r):
            return valuePaths(l, bindings: bindings, into: &paths) + valuePaths(r, bindings: bindings, into: &paths)
        case .constant, .anyKey, .symbol: return []
        }
    }
}

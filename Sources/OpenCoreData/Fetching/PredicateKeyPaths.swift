import Foundation

/// The key paths of one fetch's predicate, each resolved against the model once: by the plan, when it
/// checks the predicate (``FetchPlan/check(_:entity:blocksInMemory:)``), then read back by the SQL
/// translator, which therefore finds the same hops, columns and errors the check found.
///
/// A key path is known by the entity it starts from (the fetched entity, or the objects a `SUBQUERY`
/// variable stands for) and its text. A key path not resolved yet (a translator used without a plan,
/// as tests do) is resolved on first use and remembered.
struct PredicateKeyPaths {
    private struct Key: Hashable {
        let start: ObjectIdentifier
        let text: String
    }

    private var resolved: [Key: ResolvedKeyPath] = [:]
    /// The resolver of predicate key paths (its errors say "keypath … not found in entity …").
    let resolver = KeyPathResolver(use: .predicate)
    /// Every key path the plan's check resolved, as the fetched object reads it (a `SUBQUERY`
    /// variable's key paths behind its collection's relationships), in the order met: what
    /// ``RequestKeyPaths`` follows back from a changed related object.
    private(set) var reads: [ReadKeyPath] = []

    /// How many key paths are resolved.
    var count: Int { resolved.count }

    /// `text` read from objects of `layout` (named `entityName` in errors), without judging how many
    /// values it gives.
    mutating func resolve(_ text: String, from layout: EntityLayout, named entityName: String) throws -> ResolvedKeyPath {
        let key = Key(start: ObjectIdentifier(layout), text: text)
        if let path = resolved[key] { return path }
        let path = try resolver.resolve(text, from: layout, named: entityName)
        resolved[key] = path
        return path
    }

    /// Notes that the fetched object reads `read` (the plan's check does, for each key path it resolves).
    mutating func record(_ read: ReadKeyPath) { reads.append(read) }

    /// A key path that must give one value per object (Core Data's "to-many key not allowed here" otherwise).
    mutating func single(_ text: String, from layout: EntityLayout, named entityName: String) throws -> ResolvedKeyPath {
        try resolver.single(resolve(text, from: layout, named: entityName), entityName: entityName)
    }

    /// The collection a key path gives through one to-many relationship, `nil` when it gives one value.
    mutating func collection(_ text: String, from layout: EntityLayout, named entityName: String) throws -> CollectionKeyPath? {
        try resolver.collection(resolve(text, from: layout, named: entityName), entityName: entityName)
    }
}

/// A resolved key path as the fetched object reads it: `prefix`, the relationships crossed from the
/// fetched entity to where `path` starts (a `SUBQUERY` variable's collection: `SUBQUERY(zoos, $z,
/// $z.city.name …)` reads `city.name` behind `zoos`; empty for a key path of the fetched object), then
/// `path`.
struct ReadKeyPath {
    let prefix: [ResolvedKeyPath.Hop]
    let path: ResolvedKeyPath

    /// The keys read in order, from the fetched entity `entity`: each relationship crossed (an
    /// aggregate's key path included: `animals.@max.weight` crosses `animals`, then reads `weight`),
    /// then the attribute read at the end, if any (`relationship` `nil`).
    func keys(from entity: NSEntityDescription) -> [(name: String, relationship: RelationshipLayout?)] {
        var keys = prefix.map { (name: $0.name, relationship: Optional($0.relationship)) }
        var current = prefix.last?.destination ?? entity
        var path = self.path
        while true {
            for hop in path.hops {
                keys.append((hop.name, hop.relationship))
                current = hop.destination
            }
            switch path.terminal {
            case .attribute(let slot, _, _):
                keys.append((current.layout.properties[slot].name, nil))
                return keys
            case .aggregate(_, let inner): path = inner
            case .object, .count: return keys
            }
        }
    }
}

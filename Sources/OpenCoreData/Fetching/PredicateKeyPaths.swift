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

    /// A key path that must give one value per object (Core Data's "to-many key not allowed here" otherwise).
    mutating func single(_ text: String, from layout: EntityLayout, named entityName: String) throws -> ResolvedKeyPath {
        try resolver.single(resolve(text, from: layout, named: entityName), entityName: entityName)
    }

    /// The collection a key path gives through one to-many relationship, `nil` when it gives one value.
    mutating func collection(_ text: String, from layout: EntityLayout, named entityName: String) throws -> CollectionKeyPath? {
        try resolver.collection(resolve(text, from: layout, named: entityName), entityName: entityName)
    }
}

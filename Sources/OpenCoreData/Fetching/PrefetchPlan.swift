import Foundation

/// One relationship of `relationshipKeyPathsForPrefetching`, resolved against the model, with the
/// relationships to prefetch from its destination objects in turn: the paths `zoos` and `zoos.animals`
/// make one node `zoos` with one child `animals`.
struct PrefetchNode {
    /// The relationship's storage slot in objects of the entity it belongs to (and of its subentities,
    /// whose inherited properties come first).
    let slot: Int
    let relationship: RelationshipLayout
    var children: [PrefetchNode]

    /// The key paths as a tree of relationships of `entity`. A key that is not a property of the entity
    /// it is looked up in, or that names an attribute, throws, naming the entity and the key.
    static func resolve(_ paths: [String], entity: NSEntityDescription) throws -> [PrefetchNode] {
        var roots: [PrefetchNode] = []
        for path in paths {
            try insert(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...], path: path,
                       into: &roots, entity: entity, fetched: entity)
        }
        return roots
    }

    private static func insert(_ keys: ArraySlice<String>, path: String, into nodes: inout [PrefetchNode],
                               entity: NSEntityDescription, fetched: NSEntityDescription) throws {
        guard let key = keys.first else { return }
        let name = entity.name ?? "?"
        let fetchedName = fetched.name ?? "?"
        guard let slot = entity.layout.slotByName[key] else {
            throw CoreDataError(NSCoreDataError,
                                "keypath \(path) not found in entity \(fetchedName) (relationshipKeyPathsForPrefetching): \(name) has no property \(key.isEmpty ? "named by an empty key" : key)",
                                userInfo: [NSValidationKeyErrorKey: path])
        }
        guard let relationship = entity.layout.relationship(slot) else {
            throw CoreDataError(NSCoreDataError,
                                "keypath \(path) of entity \(fetchedName) cannot be prefetched (relationshipKeyPathsForPrefetching): \(key) is an attribute of \(name), not a relationship",
                                userInfo: [NSValidationKeyErrorKey: path])
        }
        let index: Int
        if let existing = nodes.firstIndex(where: { $0.slot == slot }) {
            index = existing
        } else {
            nodes.append(PrefetchNode(slot: slot, relationship: relationship, children: []))
            index = nodes.count - 1
        }
        try insert(keys.dropFirst(), path: path, into: &nodes[index].children, entity: relationship.destination, fetched: fetched)
    }
}

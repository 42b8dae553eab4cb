import Foundation

/// What a request reads, as its plan resolved it (taken by a fetched results controller once in
/// `performFetch()`, by a fetch with unsaved changes each time): the keys of the fetched entity
/// (predicate, sort descriptors, section key path), and the keys of related entities that key paths
/// read through relationships (`classification.order` reads `order` of `Classification`), each with
/// the way back to the fetched entity through the inverse relationships. A change of a related
/// object's key is traced back to the rows that read it (``NSManagedObjectContext/rows(of:reading:)``);
/// Core Data ignores such changes.
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
    /// Whether the section name is read through a `@KeyValue` property, which may read any key.
    private(set) var readsUnmodeledKeys = false

    /// What `plan` reads (its predicate's key paths, those read behind `SUBQUERY` variables included,
    /// and its sort descriptors) and `sectionNameKeyPath` (`readsUnmodeledKeys`: read through a
    /// `@KeyValue` property), all as the plan resolved them
    /// (``FetchPlan/checkSectionNameKeyPath(_:)`` resolves the section's): nothing is resolved here.
    init(_ plan: FetchPlan, sectionNameKeyPath: ResolvedKeyPath? = nil, readsUnmodeledKeys: Bool = false) {
        self.readsUnmodeledKeys = readsUnmodeledKeys
        var reads = plan.sorts.map { ReadKeyPath(prefix: [], path: $0.keyPath) }
        if let sectionNameKeyPath { reads.append(ReadKeyPath(prefix: [], path: sectionNameKeyPath)) }
        reads += plan.keyPaths.reads
        var seen = Set<RelatedKey>()
        for read in reads { add(read.keys(from: plan.entity), from: plan.entity, seen: &seen) }
    }

    /// Adds the keys of one key path read from the fetched entity `entity`: its first key to
    /// ``ownKeys``, each further key to ``related`` with the hops back (`seen`: those added already).
    private mutating func add(_ keys: [(name: String, relationship: RelationshipLayout?)], from entity: NSEntityDescription,
                              seen: inout Set<RelatedKey>) {
        guard let first = keys.first else { return }
        ownKeys.insert(first.name)
        var current = entity
        var back: [Hop] = []
        for (i, key) in keys.enumerated() {
            if i > 0 {
                let r = RelatedKey(entity: current, key: key.name, back: back)
                if seen.insert(r).inserted { related[ObjectIdentifier(current.layout.root), default: []].append(r) }
            }
            guard let r = key.relationship else { break }
            back.insert(Hop(entity: current, forward: key.name, forwardIsToMany: r.isToMany, inverse: r.relationship.inverseRelationship?.name), at: 0)
            current = r.destination
        }
    }

    /// The related keys of `object`'s table that `object`'s entity has.
    func relatedKeys(of entity: NSEntityDescription) -> [RelatedKey] {
        guard let keys = related[ObjectIdentifier(entity.layout.root)] else { return [] }
        return keys.filter { entity.isKindOf(entity: $0.entity) }
    }
}

import Foundation
import OpenCoreDataPredicates

/// Core Data's version hashes (`NSEntityDescription.versionHash`, `NSPropertyDescription.versionHash`,
/// `NSManagedObjectModel.entityVersionHashesByName`, `versionChecksum`), computed as Core Data computes
/// them: SHA-256 digests of the schema facts a store's layout depends on, so that the hashes a store file
/// written on an Apple platform records (`NSStoreModelVersionHashes`) equal the ones computed here from the
/// model file that wrote it. docs/ModelFiles.md ("Version hashes") lists what goes in and which parts the
/// fixture stores prove. Integers go in little-endian, as on every Apple platform; strings as UTF-8
/// without terminator.
enum VersionHashes {
    /// An entity's hash: SHA-256 of its name, a byte for `isAbstract`, the superentity's hash, the hashes of
    /// its stored attributes and relationships (inherited ones included; transient ones, fetched
    /// properties and expression descriptions left out) in name order, its `versionHashModifier`, and its
    /// uniqueness constraints (each joined with ".", in order, empty ones left out).
    static func entity(_ e: NSEntityDescription) -> Data {
        var sha = SHA256()
        sha.update(Array((e.name ?? "").utf8))
        sha.update([e.isAbstract ? 1 : 0])
        if let parent = e.superentity { sha.update(entity(parent)) }
        let stored = e.properties
            .filter { ($0 is NSAttributeDescription || $0 is NSRelationshipDescription) && !$0.isTransient }
            .sorted { $0.name < $1.name }
        for p in stored { sha.update(property(p)) }
        sha.update(Array((e.versionHashModifier ?? "").utf8))
        for constraint in constraintStrings(e) where !constraint.isEmpty { sha.update(Array(constraint.utf8)) }
        return Data(sha.finalize())
    }

    /// A property's hash (a derived attribute's is its own: ``derived(_:)``): for every property, SHA-256 of
    /// its name, two bytes of flags (1 optional, 2 transient, 4 read-only) and its `versionHashModifier`; an attribute hashes that digest again with
    /// its type (4 bytes) and a byte each for `allowsExternalBinaryDataStorage` and
    /// `preservesValueInHistoryOnDeletion` when set (a composite then its elements' hashes, in order: not
    /// confirmed against a store Core Data wrote); a relationship with its destination entity's name,
    /// its inverse's name, `maxCount` and `minCount` (4 bytes each) and two bytes when ordered.
    static func property(_ p: NSPropertyDescription, depth: Int = 0) -> Data {
        if let derived = p as? NSDerivedAttributeDescription { return self.derived(derived) }
        var sha = SHA256()
        sha.update(Array(p.name.utf8))
        let flags: UInt16 = (p.isOptional ? 1 : 0) | (p.isTransient ? 2 : 0)
        sha.update(littleEndian(flags))
        sha.update(Array((p.versionHashModifier ?? "").utf8))
        let common = sha.finalize()
        if let a = p as? NSAttributeDescription { return attribute(a, common, depth: depth) }
        if let r = p as? NSRelationshipDescription { return relationship(r, common) }
        return Data(common)
    }

    /// A derived attribute's hash: SHA-256 of its derivation expression's format and its filtering
    /// predicate's format, and nothing else — Core Data computes the attribute's own digest and drops it
    /// (proven by coredataplus-samplemodel2-history, whose Book has one). Core Data keeps `x.@count` as
    /// `count:(x)` and `x.@sum` / `x.@total` as `sum:(x)`, so those are hashed in that form.
    private static func derived(_ d: NSDerivedAttributeDescription) -> Data {
        var sha = SHA256()
        if let expression = d.derivationExpression { sha.update(Array(applesFormat(expression).utf8)) }
        if let filter = d.filteringPredicate { sha.update(Array(filter.predicateFormat.utf8)) }
        return Data(sha.finalize())
    }

    /// An expression's format as Core Data's derived attributes keep it (see ``derived(_:)``).
    static func applesFormat(_ expression: NSExpression) -> String {
        if case .keyPath(let path) = expression.node {
            for (suffix, function) in [(".@count", "count:"), (".@sum", "sum:"), (".@total", "sum:")] where path.hasSuffix(suffix) {
                return "\(function)(\(path.dropLast(suffix.count)))"
            }
        }
        return expression.description
    }

    private static func attribute(_ a: NSAttributeDescription, _ common: [UInt8], depth: Int) -> Data {
        var sha = SHA256()
        sha.update(common)
        sha.update(littleEndian(UInt32(truncatingIfNeeded: a.attributeType.rawValue)))
        if a.allowsExternalBinaryDataStorage { sha.update([1]) }
        if a.preservesValueInHistoryOnDeletion { sha.update([1]) }
        // A composite: its elements' hashes, in order (our choice: Core Data's rule is not known).
        if let c = a as? NSCompositeAttributeDescription, depth < CompositeLimits.depth {
            for element in c.elements { sha.update(property(element, depth: depth + 1)) }
        }
        return Data(sha.finalize())
    }

    private static func relationship(_ r: NSRelationshipDescription, _ common: [UInt8]) -> Data {
        var sha = SHA256()
        sha.update(common)
        sha.update(Array((r.destinationEntity?.name ?? r.destinationName ?? "").utf8))
        if let inverse = r.inverseRelationship?.name ?? r.inverseName, !isOwnInverse(r) {
            sha.update(Array(inverse.utf8))
        }
        sha.update(littleEndian(UInt32(truncatingIfNeeded: r.maxCount)))
        sha.update(littleEndian(UInt32(truncatingIfNeeded: r.minCount)))
        if r.isOrdered { sha.update(littleEndian(UInt16(1))) }
        return Data(sha.finalize())
    }

    /// A relationship that is its own inverse (`spouse` ↔ `spouse`) leaves the inverse's name out, in the
    /// entity that declares it and in its subentities.
    private static func isOwnInverse(_ r: NSRelationshipDescription) -> Bool {
        if let inverse = r._inverse { return inverse === r }
        guard r.inverseName == r.name else { return false }
        let destination = r._destination?.name ?? r.destinationName
        return destination != nil && destination == r.entity?.name
    }

    /// The uniqueness constraints as Core Data hashes them: each one's elements (property names) joined
    /// with ".", sorted.
    private static func constraintStrings(_ e: NSEntityDescription) -> [String] {
        e.uniquenessConstraints.map { constraint in
            constraint.map { element -> String in
                if let name = element as? String { return name }
                if let property = element as? NSPropertyDescription { return property.name }
                return "\(element)"
            }.joined(separator: ".")
        }.sorted()
    }

    /// The model's checksum: base64 of SHA-256 over its entities' hashes in entity-name order.
    static func checksum(of entities: [NSEntityDescription]) -> String {
        var sha = SHA256()
        for e in entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) { sha.update(entity(e)) }
        return Data(sha.finalize()).base64EncodedString()
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

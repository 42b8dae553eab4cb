import Foundation

/// The class a fetch request names when Foundation's archiver writes it: that archiver names a class by
/// `NSStringFromClass`, which traps on a generic class such as `NSFetchRequest<NSFetchRequestResult>`.
/// ``ModelArchiveEncoding/applesClassNames(_:)`` renames it `NSFetchRequest`. Never instantiated.
final class FetchRequestArchiveName: NSObject {}

/// `NSFetchRequestFlags`: one bit per flag, as Core Data archives a request.
enum FetchRequestArchiveFlags {
    static let distinct = 1, subentities = 2, propertyValues = 4, faults = 8, pendingChanges = 16, refresh = 32
}

extension NSFetchRequest: NSSecureCoding {
    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`): `true`.
    public static var supportsSecureCoding: Bool { true }

    /// What `init?(coder:)` reads: the flags (`NSHasFetchRequestFlags`, `NSFetchRequestFlags`),
    /// `NSResultType`, `NSEntity`, `NSPredicate`, `NSSortDescriptors`, `NSFetchLimit`, `NSFetchOffset`,
    /// `NSBatchSize`, `NSValuesToFetch`, `NSValuesToGroupBy`, `NSHavingPredicate`,
    /// `NSRelationshipKeyPathsForPrefetching`. The predicates and sort descriptors are allowed to evaluate,
    /// as Core Data allows a request's. The entity is read by this library's unarchiver only.
    func decodeFetchRequest(from coder: NSCoder) -> Bool {
        ModelArchiveDecoder.noteDecoding(self, by: coder)
        if coder.decodeBool(forKey: "NSHasFetchRequestFlags") {
            let flags = coder.decodeInteger(forKey: "NSFetchRequestFlags")
            returnsDistinctResults = flags & FetchRequestArchiveFlags.distinct != 0
            includesSubentities = flags & FetchRequestArchiveFlags.subentities != 0
            includesPropertyValues = flags & FetchRequestArchiveFlags.propertyValues != 0
            returnsObjectsAsFaults = flags & FetchRequestArchiveFlags.faults != 0
            includesPendingChanges = flags & FetchRequestArchiveFlags.pendingChanges != 0
            shouldRefreshRefetchedObjects = flags & FetchRequestArchiveFlags.refresh != 0
            let type = coder.decodeInteger(forKey: "NSResultType")
            guard [0, 1, 2, 4].contains(type) else { return ModelArchiveDecoder.failed(coder, "unknown result type \(type)") }
            resultType = NSFetchRequestResultType(rawValue: UInt(type))
        }
        // Only this library's unarchiver follows the entity: Foundation's could meet this request again
        // through the entity's fetched properties, and recurse until the stack overflows.
        if coder is ModelArchiveDecoder, let entity = ArchiveKeys.object(coder, "NSEntity", [NSEntityDescription.self]) as? NSEntityDescription {
            self.entity = entity
        }
        predicate = ArchiveKeys.object(coder, "NSPredicate", [NSPredicate.self]) as? NSPredicate
        havingPredicate = ArchiveKeys.object(coder, "NSHavingPredicate", [NSPredicate.self]) as? NSPredicate
        sortDescriptors = ArchiveKeys.array(coder, "NSSortDescriptors", of: [NSSortDescriptor.self], as: NSSortDescriptor.self)
        predicate?.allowEvaluation()
        havingPredicate?.allowEvaluation()
        for descriptor in sortDescriptors ?? [] { descriptor.allowEvaluation() }
        let limit = coder.decodeInt64(forKey: "NSFetchLimit"), offset = coder.decodeInt64(forKey: "NSFetchOffset")
        let batch = coder.decodeInt64(forKey: "NSBatchSize")
        guard limit >= 0, offset >= 0, batch >= 0 else {
            return ModelArchiveDecoder.failed(coder, "a negative limit, offset or batch size (\(limit), \(offset), \(batch))")
        }
        (fetchLimit, fetchOffset, fetchBatchSize) = (Int(limit), Int(offset), Int(batch))
        let columns: [AnyClass] = [NSString.self, NSPropertyDescription.self]
        propertiesToFetch = ArchiveKeys.array(coder, "NSValuesToFetch", of: columns, as: Any.self)
        propertiesToGroupBy = ArchiveKeys.array(coder, "NSValuesToGroupBy", of: columns, as: Any.self)
        relationshipKeyPathsForPrefetching = ArchiveKeys.array(coder, "NSRelationshipKeyPathsForPrefetching", of: [NSString.self], as: String.self)
        return coder.error == nil
    }

    func encodeFetchRequest(with coder: NSCoder) {
        if let entity { coder.encodeConditionalObject(entity, forKey: "NSEntity") }
        if let predicate { coder.encode(predicate, forKey: "NSPredicate") }
        if let sortDescriptors { coder.encode(sortDescriptors as NSArray, forKey: "NSSortDescriptors") }
        if let havingPredicate { coder.encode(havingPredicate, forKey: "NSHavingPredicate") }
        coder.encode(Int32(clamping: fetchLimit), forKey: "NSFetchLimit")
        coder.encode(Int32(clamping: fetchOffset), forKey: "NSFetchOffset")
        coder.encode(Int32(clamping: fetchBatchSize), forKey: "NSBatchSize")
        if let columns = ModelArchiveEncoding.columns(propertiesToFetch) { coder.encode(columns, forKey: "NSValuesToFetch") }
        if let columns = ModelArchiveEncoding.columns(propertiesToGroupBy) { coder.encode(columns, forKey: "NSValuesToGroupBy") }
        if let paths = relationshipKeyPathsForPrefetching { coder.encode(paths.map { NSString(string: $0) } as NSArray, forKey: "NSRelationshipKeyPathsForPrefetching") }
        coder.encode(Int(resultType.rawValue), forKey: "NSResultType")
        coder.encode(0, forKey: "NSAllocationType")
        var flags = returnsDistinctResults ? FetchRequestArchiveFlags.distinct : 0
        if includesSubentities { flags |= FetchRequestArchiveFlags.subentities }
        if includesPropertyValues { flags |= FetchRequestArchiveFlags.propertyValues }
        if returnsObjectsAsFaults { flags |= FetchRequestArchiveFlags.faults }
        if includesPendingChanges { flags |= FetchRequestArchiveFlags.pendingChanges }
        if shouldRefreshRefetchedObjects { flags |= FetchRequestArchiveFlags.refresh }
        coder.encode(true, forKey: "NSHasFetchRequestFlags")
        coder.encode(flags, forKey: "NSFetchRequestFlags")
    }
}

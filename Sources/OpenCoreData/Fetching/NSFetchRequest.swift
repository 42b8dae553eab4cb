import Foundation

/// Mirrors Core Data's `NSFetchRequestResultType`.
public struct NSFetchRequestResultType: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// `NSManagedObjectID`s.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// `NSDictionary`s of `propertiesToFetch` (store state only: pending changes are not included, as in Core Data).
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// One `NSNumber`: the count.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// Mirrors Core Data's `NSFetchRequest<ResultType>`: which entity, which objects (predicate), in what
/// order (sort descriptors), how many (limit, offset, batch size), and in which shape (result type).
///
/// `ResultType` is unconstrained, because on Linux `NSFetchRequestResult` cannot be an `@objc` protocol
/// and `NSFetchRequest<NSFetchRequestResult>` must still compile; the context checks at fetch time that
/// the results are of `ResultType` and throws if not.
///
/// A subclass of ``NSPersistentStoreRequest``, as in Core Data: `affectedStores` limits the stores the
/// fetch searches (see there).
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    /// Mirrors `entityName`.
    public var entityName: String?
    private var _entity: NSEntityDescription?
    /// Mirrors `predicate`.
    public var predicate: NSPredicate?
    /// Mirrors `sortDescriptors`.
    public var sortDescriptors: [NSSortDescriptor]?
    /// Mirrors `fetchLimit` (0: no limit).
    public var fetchLimit: Int = 0
    /// Mirrors `fetchOffset`.
    public var fetchOffset: Int = 0
    /// Mirrors `fetchBatchSize` (0: load every object's values with the fetch). With N > 0 only the object
    /// IDs are read up front, and values are loaded N objects at a time when an object is first touched.
    public var fetchBatchSize: Int = 0
    /// Mirrors `resultType`.
    public var resultType: NSFetchRequestResultType = .managedObjectResultType
    /// Mirrors `propertiesToFetch`: attribute names, `NSPropertyDescription`s or `NSExpressionDescription`s.
    public var propertiesToFetch: [Any]?
    /// Mirrors `propertiesToGroupBy` (dictionary results).
    public var propertiesToGroupBy: [Any]?
    /// Mirrors `havingPredicate`: the condition each group of a `propertiesToGroupBy` fetch must meet (SQL
    /// `HAVING`). It names a group by the keys of `propertiesToGroupBy` and `propertiesToFetch` — a
    /// grouped key path such as `"name"`, or an `NSExpressionDescription`'s name, as a key path (`count >
    /// 1`) or as a variable (`$count > 1`, the form Core Data's examples use) — compared with constants,
    /// arithmetic and the other single-value operators. Requires `propertiesToGroupBy`; any other key,
    /// a to-many collection, `SUBQUERY` or `ANY`/`ALL` makes the fetch throw, naming the entity and the key.
    public var havingPredicate: NSPredicate?
    /// Mirrors `returnsDistinctResults` (dictionary results).
    public var returnsDistinctResults = false
    /// Mirrors `includesSubentities` (default `true`).
    public var includesSubentities = true
    /// Mirrors `includesPendingChanges` (default `true`).
    public var includesPendingChanges = true
    /// Mirrors `includesPropertyValues` (default `true`): `false` fetches object IDs only.
    public var includesPropertyValues = true
    /// Mirrors `returnsObjectsAsFaults` (default `true`): objects come back as faults whose values were
    /// fetched along, so firing them costs no query.
    public var returnsObjectsAsFaults = true
    /// Mirrors `relationshipKeyPathsForPrefetching`: relationships whose destination objects a fetch of
    /// managed objects loads along with its results — `"classification"`, `"zoos"`, nested
    /// `"classification.animals"` — so that reading them costs no query per object. Each relationship of
    /// a path costs one query for all the fetched objects (with a batched fetch: for each batch, as it
    /// loads); its destination objects come back registered with their values (not faults), and the
    /// to-many sets read. A key that is not a relationship of the entity it is read from makes the fetch
    /// throw, naming the entity and the key. Ignored by ID, dictionary and count results, as in Core Data.
    public var relationshipKeyPathsForPrefetching: [String]?
    /// Mirrors `shouldRefreshRefetchedObjects` (default `false`): `true` makes a fetch of managed objects
    /// update the objects it finds already registered with their values to the store's current values,
    /// unsaved changes kept on top; by default they keep the values they have.
    public var shouldRefreshRefetchedObjects = false

    /// Mirrors `init()`.
    public override init() { super.init() }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): a request as Core Data archives it in a compiled model (a
    /// fetch request template, a fetched property's request), with Apple's keys
    /// (Model/Files/CompiledModel/NSFetchRequest+Coding.swift). Its predicate and sort descriptors may
    /// evaluate, as Core Data allows a request's.
    public required init?(coder: NSCoder) {
        super.init()
        guard decodeFetchRequest(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`): Apple's keys; the entity as a conditional reference.
    open func encode(with coder: NSCoder) { encodeFetchRequest(with: coder) }

    /// A stand-in class name for Foundation's archiver on Linux, which cannot name a generic class
    /// (`FetchRequestArchiveName`; the archive says `NSFetchRequest`).
    open override var classForKeyedArchiver: AnyClass? { FetchRequestArchiveName.self }

    /// Mirrors `init(entityName:)`.
    public convenience init(entityName: String) {
        self.init()
        self.entityName = entityName
    }

    /// Mirrors `requestType`: `.fetchRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Mirrors `entity`. Setting it sets `entityName`.
    public var entity: NSEntityDescription? {
        get { _entity }
        set {
            _entity = newValue
            entityName = newValue?.name
        }
    }

    public override var description: String {
        "<NSFetchRequest: entity: \(entityName ?? "nil"), predicate: (\(predicate?.predicateFormat ?? "nil")); sortDescriptors: (\(sortDescriptors?.map(\.description).joined(separator: ", ") ?? "nil")); limit: \(fetchLimit); offset: \(fetchOffset); batch size: \(fetchBatchSize); type: \(resultType.rawValue)>"
    }
}

/// Mirrors Core Data's `NSExpressionDescription`: a computed column of a dictionary fetch, such as
/// `max:(price)` named `"maxPrice"`.
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    /// Mirrors `expression`.
    public var expression: NSExpression?
    /// Mirrors `expressionResultType`: the type the store reads the expression's value back as
    /// (`.undefinedAttributeType`: as the database returns it).
    public var expressionResultType: NSAttributeType = .undefinedAttributeType
    /// Mirrors `resultType`: ``expressionResultType`` in its Swift form (setting either sets both).
    public var resultType: NSAttributeDescription.AttributeType {
        get { NSAttributeDescription.AttributeType(rawValue: expressionResultType) }
        set { expressionResultType = newValue.rawValue }
    }

    public override init() { super.init() }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): also `NSExpression` and the result type
    /// (`NSExpressionType`).
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        guard decodeExpressionDescription(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`): read-only, with `NSExpression` and `NSExpressionType`.
    open override func encode(with coder: NSCoder) {
        encodeProperty(with: coder, readOnly: true)
        encodeExpressionDescription(with: coder)
    }
}

import Foundation

/// Mirrors Core Data's `NSFetchIndexElementType`: how an index element is organised.
public enum NSFetchIndexElementType: UInt, Sendable {
    /// Mirrors `.binary`: an ordinary (B-tree) index.
    case binary = 0
    /// Mirrors `.rTree`: a spatial index over a range of values. Kept in the model and its files; the SQLite
    /// store does not create an index with such an element (docs/APICoverage.md).
    case rTree = 1
}

/// Mirrors Core Data's `NSFetchIndexDescription`: a named index of an entity (a model file's `fetchIndex`),
/// listed in ``NSEntityDescription/indexes``.
///
/// The SQLite store creates it as `CREATE INDEX Z_<Entity>_<name> ON <table> (…)`, as Core Data names it,
/// when its elements are stored properties of binary type, with `WHERE` and its partial index predicate
/// when it has one (comparisons of attributes with constants); R-tree elements and expression elements
/// are not created (see docs/Store.md, "Fetch indexes").
open class NSFetchIndexDescription: NSObject, NSSecureCoding, @unchecked Sendable {
    /// Mirrors `name`.
    public var name: String
    /// Mirrors `elements`: the indexed properties (or expressions), in order.
    public var elements: [NSFetchIndexElementDescription] {
        didSet { for e in elements { e.indexDescription = self } }
    }
    /// Mirrors `entity`: set when the index is added to an entity's `indexes`.
    public internal(set) var entity: NSEntityDescription? {
        get { entityReference.entity }
        set { entityReference = WeakEntityReference(newValue) }
    }
    private var entityReference = WeakEntityReference()
    /// Mirrors `partialIndexPredicate`: only rows matching it are indexed (the SQLite index's `WHERE`).
    public var partialIndexPredicate: NSPredicate?

    /// Mirrors `init(name:elements:)`.
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
        for e in self.elements { e.indexDescription = self }
    }

    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`).
    public static var supportsSecureCoding: Bool { true }

    /// Mirrors `init(coder:)`: an index as Core Data archives it (in a compiled model, or with
    /// ``encode(with:)``): its name (`NSIndexName`), elements (`NSIndexElements`, naming their properties,
    /// found when the index's entity is known) and partial index predicate (`NSPartialIndexPredicate`,
    /// allowed to evaluate). The entity (`NSEntity`) is the one whose indexes hold it.
    public required init?(coder: NSCoder) {
        name = ""
        elements = []
        super.init()
        ModelArchiveDecoder.noteDecoding(self, by: coder)
        guard let name = ArchiveKeys.string(coder, "NSIndexName") else {
            ModelArchiveDecoder.failed(coder, "a fetch index without a name (NSIndexName)")
            return nil
        }
        self.name = name
        elements = ArchiveKeys.array(coder, "NSIndexElements", of: [NSFetchIndexElementDescription.self], as: NSFetchIndexElementDescription.self) ?? []
        partialIndexPredicate = ArchiveKeys.object(coder, "NSPartialIndexPredicate", [NSPredicate.self]) as? NSPredicate
        partialIndexPredicate?.allowEvaluation()
        for e in elements { e.indexDescription = self }
        guard coder.error == nil else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`), with Apple's keys.
    public func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "NSIndexName")
        coder.encode(elements as NSArray, forKey: "NSIndexElements")
        if let partialIndexPredicate { coder.encode(partialIndexPredicate, forKey: "NSPartialIndexPredicate") }
        if let entity { coder.encodeConditionalObject(entity, forKey: "NSEntity") }
    }
}

/// Mirrors Core Data's `NSFetchIndexElementDescription`: one property of a fetch index, ascending or not
/// (a model file's `fetchIndexElement`).
open class NSFetchIndexElementDescription: NSObject, NSSecureCoding, @unchecked Sendable {
    /// Mirrors `property`: an attribute, a to-one relationship, or an `NSExpressionDescription` for an
    /// expression element.
    public var property: NSPropertyDescription?
    /// The property's name when the element was made by name (before the entity's properties are known).
    private var _propertyName: String?
    /// Mirrors `collationType`.
    public var collationType: NSFetchIndexElementType
    /// Mirrors `isAscending` (default `true`).
    public var isAscending: Bool = true
    /// Mirrors `indexDescription`: the index this element belongs to.
    public internal(set) weak var indexDescription: NSFetchIndexDescription?

    /// Mirrors `init(property:collationType:)`.
    public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
        self.property = property
        self.collationType = collationType
        super.init()
    }

    /// A convenience not in Core Data: an element naming its property.
    public init(propertyName: String, collationType: NSFetchIndexElementType, ascending: Bool = true) {
        self._propertyName = propertyName
        self.collationType = collationType
        self.isAscending = ascending
        super.init()
    }

    /// Mirrors `propertyName`: the property's name.
    public var propertyName: String? { property?.name ?? _propertyName }

    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`).
    public static var supportsSecureCoding: Bool { true }

    /// Mirrors `init(coder:)`: an element as Core Data archives it, naming its property (`NSPropertyName`:
    /// the property belongs to an entity and is found again in the index's entity) or holding an
    /// expression description (`NSIndexedProperty`), with `NSFetchIndexElementType` and `NSAscending`.
    public required init?(coder: NSCoder) {
        collationType = .binary
        super.init()
        ModelArchiveDecoder.noteDecoding(self, by: coder)
        _propertyName = ArchiveKeys.string(coder, "NSPropertyName")
        property = ArchiveKeys.object(coder, "NSIndexedProperty", [NSExpressionDescription.self]) as? NSExpressionDescription
        let type = coder.decodeInt64(forKey: "NSFetchIndexElementType")
        guard type >= 0, let collation = NSFetchIndexElementType(rawValue: UInt(type)) else {
            ModelArchiveDecoder.failed(coder, "unknown fetch index element type \(type)")
            return nil
        }
        collationType = collation
        isAscending = coder.containsValue(forKey: "NSAscending") ? coder.decodeBool(forKey: "NSAscending") : true
        guard coder.error == nil, _propertyName != nil || property != nil else {
            ModelArchiveDecoder.failed(coder, "a fetch index element with neither a property name nor an expression")
            return nil
        }
    }

    /// Mirrors `encode(with:)` (`NSCoding`), with Apple's keys.
    public func encode(with coder: NSCoder) {
        if let propertyName { coder.encode(propertyName as NSString, forKey: "NSPropertyName") }
        if let expression = property as? NSExpressionDescription { coder.encode(expression, forKey: "NSIndexedProperty") }
        coder.encode(Int(collationType.rawValue), forKey: "NSFetchIndexElementType")
        coder.encode(isAscending, forKey: "NSAscending")
        if let indexDescription { coder.encodeConditionalObject(indexDescription, forKey: "NSFetchIndexDescription") }
    }
}

/// Mirrors Core Data's `NSFetchedPropertyDescription`: a property whose value is the result of a fetch
/// request, evaluated lazily (a model file's `fetchedProperty`). The request's predicate may name
/// `$FETCH_SOURCE` (the object) and `$FETCHED_PROPERTY` (this description).
///
/// Reading the property (`value(forKey:)`) runs the request in the object's context the first time and
/// gives the results as an array, kept until the object is refreshed (`refresh(_:mergeChanges:)`); the
/// request's predicate may name `$FETCH_SOURCE.key`. A fetch request of another entity cannot name a
/// fetched property (its value is no column).
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    /// Mirrors `fetchRequest`: the request whose results are the property's value (its entity, predicate
    /// and sort descriptors are used; `$FETCH_SOURCE` is the object read, `$FETCHED_PROPERTY` this description).
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    public override init() { super.init() }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): also `NSFetchRequest` (its entity also named by
    /// `_NSFetchRequestEntityName`).
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        guard decodeFetchedProperty(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`): read-only, as Core Data writes a fetched property.
    open override func encode(with coder: NSCoder) {
        encodeProperty(with: coder, readOnly: true)
        encodeFetchedProperty(with: coder)
    }
}

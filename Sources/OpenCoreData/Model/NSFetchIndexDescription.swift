import Foundation

/// Mirrors Core Data's `NSFetchIndexElementType`: how an index element is organised.
public enum NSFetchIndexElementType: UInt, Sendable {
    /// Mirrors `.binary`: an ordinary (B-tree) index.
    case binary = 0
    /// Mirrors `.rTree`: a spatial index over a range of values.
    case rTree = 1
}

/// Mirrors Core Data's `NSFetchIndexDescription`: a named index of an entity (a model file's `fetchIndex`),
/// listed in ``NSEntityDescription/indexes``.
///
/// The SQLite store creates it as `CREATE INDEX Z_<Entity>_<name> ON <table> (…)`, as Core Data names it,
/// when its elements are properties of binary type and it has no partial index predicate; others are
/// not created (see docs/Store.md, "Fetch indexes").
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
    /// Mirrors `partialIndexPredicate`: only rows matching it are indexed.
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

    /// Mirrors `init(coder:)`: an index archived with ``encode(with:)``: its name, elements (by property
    /// name, resolved when the index is added to an entity) and partial index predicate.
    public required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "NSFetchIndexName") as String? else { return nil }
        self.name = name
        let elements = coder.decodeObject(of: [NSArray.self, NSFetchIndexElementDescription.self], forKey: "NSFetchIndexElements")
        self.elements = (elements as? [NSFetchIndexElementDescription]) ?? []
        self.partialIndexPredicate = coder.decodeObject(of: NSPredicate.self, forKey: "NSFetchIndexPartialIndexPredicate")
        super.init()
        for e in self.elements { e.indexDescription = self }
    }

    /// Mirrors `encode(with:)` (`NSCoding`).
    public func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "NSFetchIndexName")
        coder.encode(elements as NSArray, forKey: "NSFetchIndexElements")
        if let partialIndexPredicate { coder.encode(partialIndexPredicate, forKey: "NSFetchIndexPartialIndexPredicate") }
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

    /// Mirrors `init(coder:)`: an element archived with ``encode(with:)``, naming its property (the
    /// property itself belongs to an entity and is found again when the index is added to one).
    public required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "NSFetchIndexElementPropertyName") as String?,
              let collation = NSFetchIndexElementType(rawValue: UInt(coder.decodeInteger(forKey: "NSFetchIndexElementCollationType"))) else {
            return nil
        }
        self._propertyName = name
        self.collationType = collation
        self.isAscending = coder.decodeBool(forKey: "NSFetchIndexElementIsAscending")
        super.init()
    }

    /// Mirrors `encode(with:)` (`NSCoding`).
    public func encode(with coder: NSCoder) {
        coder.encode((propertyName ?? "") as NSString, forKey: "NSFetchIndexElementPropertyName")
        coder.encode(Int(collationType.rawValue), forKey: "NSFetchIndexElementCollationType")
        coder.encode(isAscending, forKey: "NSFetchIndexElementIsAscending")
    }
}

/// Mirrors Core Data's `NSFetchedPropertyDescription`: a property whose value is the result of a fetch
/// request, evaluated lazily (a model file's `fetchedProperty`). The request's predicate may name
/// `$FETCH_SOURCE` (the object) and `$FETCHED_PROPERTY` (this description).
///
/// Stored and written back; reading the property does not run the fetch yet (its value is `nil`), and a
/// fetch request cannot name it.
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    /// Mirrors `fetchRequest`.
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    public override init() { super.init() }
}

import Foundation

/// Mirrors Core Data's `NSDeleteRule`: what deleting an object does to the objects a relationship
/// reaches, applied when the context processes the delete.
public enum NSDeleteRule: UInt, Sendable {
    /// Mirrors `.noActionDeleteRule`: the destination objects are left alone (their inverse still
    /// names the deleted object until you change it).
    case noActionDeleteRule = 0
    /// Mirrors `.nullifyDeleteRule`: the deleted object is removed from each destination's inverse.
    case nullifyDeleteRule = 1
    /// Mirrors `.cascadeDeleteRule`: the destination objects are deleted too (recursively, once each).
    case cascadeDeleteRule = 2
    /// Mirrors `.denyDeleteRule`: while the relationship is not empty, `save()` throws
    /// `NSValidationRelationshipDeniedDeleteError` and writes nothing.
    case denyDeleteRule = 3
}

/// Mirrors Core Data's `NSRelationshipDescription`: a property whose values are objects of the
/// destination entity — one (to-one), or a set (to-many, ordered or not).
///
/// Core Data's own way to build one in code is to set `destinationEntity` and `inverseRelationship`
/// to the description objects. The convenience initializer ``init(name:destination:inverse:toMany:ordered:deleteRule:optional:minCount:maxCount:)``
/// names them instead; the names are resolved when a coordinator loads the model, and a name that
/// resolves to nothing is an error then, naming the entity and the relationship.
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    /// Mirrors `destinationEntity`.
    public var destinationEntity: NSEntityDescription? {
        get { _destination }
        set { _destination = newValue; destinationName = newValue?.name }
    }
    /// Mirrors `inverseRelationship`.
    public var inverseRelationship: NSRelationshipDescription? {
        get { _inverse }
        set { _inverse = newValue; inverseName = newValue?.name }
    }
    /// Mirrors `minCount` (0: no minimum).
    public var minCount: Int = 0
    /// Mirrors `maxCount` (0: no maximum). 1, the default, makes a to-one relationship.
    public var maxCount: Int = 1
    /// Mirrors `isOrdered`: a to-many relationship whose values keep their order (`NSOrderedSet`).
    public var isOrdered: Bool = false
    /// Mirrors `deleteRule` (`.nullifyDeleteRule` by default, as Xcode's model editor makes them).
    public var deleteRule: NSDeleteRule = .nullifyDeleteRule

    /// Mirrors `isToMany`: true unless `maxCount` is 1.
    public var isToMany: Bool { maxCount != 1 }

    var _destination: NSEntityDescription? {
        get { destinationReference.entity }
        set { destinationReference = WeakEntityReference(newValue) }
    }
    private var destinationReference = WeakEntityReference()
    weak var _inverse: NSRelationshipDescription?
    /// The destination and inverse by name, until the model is loaded.
    var destinationName: String?
    var inverseName: String?

    public override init() { super.init() }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): also `_NSDestinationEntityName`,
    /// `_NSInverseRelationshipName`, `NSDeleteRule`, `NSMinCount`, `NSMaxCount`, the ordered flag. The
    /// destination and inverse are found by name when the model is decoded (or loaded).
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        guard decodeRelationship(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`), with Apple's keys.
    open override func encode(with coder: NSCoder) {
        encodeProperty(with: coder, ordered: isOrdered)
        encodeRelationship(with: coder)
    }

    /// A convenience not in Core Data: a relationship whose destination entity and inverse are named,
    /// resolved when a coordinator loads the model. `toMany` with `maxCount` 0 means no maximum.
    public convenience init(name: String, destination: String, inverse: String?, toMany: Bool = false, ordered: Bool = false,
                            deleteRule: NSDeleteRule = .nullifyDeleteRule, optional: Bool = true, minCount: Int = 0, maxCount: Int = 0) {
        self.init()
        self.name = name
        self.destinationName = destination
        self.inverseName = inverse
        self.maxCount = toMany ? maxCount : 1
        self.minCount = minCount
        self.isOrdered = ordered
        self.deleteRule = deleteRule
        self.isOptional = optional
    }

    public override var description: String {
        "(\(name), \(isToMany ? "to-many" : "to-one") \(destinationEntity?.name ?? destinationName ?? "?"), inverse \(inverseRelationship?.name ?? inverseName ?? "none"))"
    }
}

import Foundation

/// Mirrors Core Data's `NSPropertyDescription`: a named property of an entity.
open class NSPropertyDescription: NSObject, @unchecked Sendable {
    /// Mirrors `name`.
    public var name: String = ""
    /// Mirrors `isOptional` (default `true`, as in Core Data).
    public var isOptional: Bool = true
    /// Mirrors `isTransient`. Transient properties are kept in memory and never saved.
    public var isTransient: Bool = false
    /// Mirrors `entity`: the entity that declares the property.
    public internal(set) var entity: NSEntityDescription? {
        get { entityReference.entity }
        set { entityReference = WeakEntityReference(newValue) }
    }
    private var entityReference = WeakEntityReference()
    /// Mirrors `userInfo`.
    public var userInfo: [AnyHashable: Any]? = nil
    /// Mirrors `renamingIdentifier`: the property's name in an earlier model version, for migration (a model
    /// file's `elementID`). Inferred mapping models and lightweight migration match a property of the new model
    /// to the old property of this name (docs/Migration.md).
    public var renamingIdentifier: String? = nil
    /// Mirrors `versionHashModifier`: a string that changes the property's ``versionHash`` (and so its
    /// entity's), to mark a change the schema does not show.
    public var versionHashModifier: String? = nil
    /// Mirrors `versionHash`: a SHA-256 digest of the property's schema facts, computed as Core Data
    /// computes it (see VersionHashes.swift); attributes and relationships add their own facts.
    public var versionHash: Data { VersionHashes.property(self) }
    /// Mirrors `isIndexed` (deprecated in Core Data in favour of ``NSEntityDescription/indexes``; a model
    /// file's `indexed="YES"`): the SQLite store creates `<table>_<column>_INDEX` for a stored attribute or
    /// to-one.
    public var isIndexed: Bool = false
    /// Mirrors `isIndexedBySpotlight` (a model file's `spotlightIndexingEnabled`). Stored only: Linux has
    /// no Spotlight.
    public var isIndexedBySpotlight: Bool = false
    /// Mirrors `validationPredicates`: conditions a value must meet. A model file's min/max value and
    /// regular expression become these, as Xcode's model compiler makes them (see docs/ModelFiles.md).
    /// Unchecked exclusivity: set only while the model is built.
    @exclusivity(unchecked) public private(set) var validationPredicates: [NSPredicate] = []
    /// Mirrors `validationWarnings`: for each validation predicate, the error code (or message) a failure
    /// reports.
    public private(set) var validationWarnings: [Any] = []
    /// The property's storage slot in objects of its entity and of every subentity (inherited properties
    /// come first, so a property has one slot in the whole hierarchy). Set when the model is frozen.
    var slot = -1

    public override init() { super.init() }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): a property as Core Data archives it in a compiled model (a
    /// `.mom` file, a store's model cache) or as ``encode(with:)`` writes it, with Apple's keys
    /// (Model/Files/CompiledModel/NSPropertyDescription+Coding.swift; docs/ModelFiles.md, "Compiled models").
    /// Decode through `NSManagedObjectModel(contentsOf:)` or `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`
    /// for a model: Foundation's own unarchiver on Linux cannot follow a model's cycles.
    public required init?(coder: NSCoder) {
        super.init()
        guard decodeProperty(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`): Apple's keys (`NSPropertyName`, `_P` and the `NSIs…` flags,
    /// `NSValidationPredicates`, `NSUserInfo`, …), the entity as a conditional reference.
    open func encode(with coder: NSCoder) { encodeProperty(with: coder) }

    /// Mirrors `setValidationPredicates(_:withValidationWarnings:)`: the two arrays pair up by position.
    public func setValidationPredicates(_ validationPredicates: [NSPredicate]?, withValidationWarnings validationWarnings: [String]?) {
        self.validationPredicates = validationPredicates ?? []
        self.validationWarnings = validationWarnings ?? []
    }

    /// The same with error codes as warnings (Core Data's compiled models hold `NSNumber` codes such as
    /// `NSValidationNumberTooSmallError`).
    func setValidationPredicates(_ predicates: [NSPredicate], codes: [Int]) {
        self.validationPredicates = predicates
        self.validationWarnings = codes.map { NSNumber(value: $0) }
    }

    /// The same with warnings as a compiled model holds them (error codes or message keys).
    func setValidation(predicates: [NSPredicate], warnings: [Any]) {
        validationPredicates = predicates
        validationWarnings = warnings
    }

    /// The same as another property's.
    func setValidation(from other: NSPropertyDescription) {
        validationPredicates = other.validationPredicates
        validationWarnings = other.validationWarnings
    }
}

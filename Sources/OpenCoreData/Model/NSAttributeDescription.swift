import Foundation

/// Mirrors Core Data's `NSAttributeDescription`.
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    /// Mirrors `attributeType`.
    public var attributeType: NSAttributeType = .undefinedAttributeType
    /// Mirrors `defaultValue`: given to each newly inserted object.
    public var defaultValue: Any? = nil
    /// Mirrors `valueTransformerName`: the name of the `ValueTransformer` of a transformable attribute (a
    /// model file's `valueTransformerName`); `nil` or empty means `NSSecureUnarchiveFromData`, as in Core
    /// Data. The store runs it at save (value to data) and fetch (data to value); see ``ValueTransformer``.
    public var valueTransformerName: String? = nil
    /// Mirrors `allowsExternalBinaryDataStorage` (a model file's `allowsExternalBinaryDataStorage`): a
    /// binary value larger than 100 KiB is kept in a file beside the SQLite store
    /// (`.<StoreName>_SUPPORT/_EXTERNAL_DATA/<UUID>`), as Core Data does; see docs/Store.md.
    public var allowsExternalBinaryDataStorage: Bool = false
    /// Mirrors `preservesValueInHistoryOnDeletion` (a model file's `preserveAfterDeletion`): a delete's
    /// history change keeps the value in its ``NSPersistentHistoryChange/tombstone``.
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// Mirrors `allowsCloudEncryption` (a model file's `allowsCloudEncryption`). Stored only: there is no
    /// CloudKit on Linux.
    public var allowsCloudEncryption: Bool = false
    /// Not in Core Data's run-time API: Xcode's "Use Scalar Type" (a model file's `usesScalarValueType`),
    /// which only Xcode's class generation reads (`Int16` rather than `NSNumber?`). Kept so that a model
    /// file reads and writes back unchanged and class generation can use it.
    public var usesScalarValueType: Bool = false
    /// The class name set explicitly (a model file's `customClassName`), `nil` for the type's own.
    var customClassName: String? = nil

    public override init() { super.init() }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): also `NSAttributeType`, `NSAttributeValueClassName`,
    /// `NSDefaultValue`, `NSValueTransformerName`, `NSFlagsKey` and the bounds it announces
    /// (NSAttributeDescription+Coding.swift).
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        guard decodeAttribute(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`), with Apple's keys.
    open override func encode(with coder: NSCoder) {
        encodeProperty(with: coder, cloudEncryption: allowsCloudEncryption)
        encodeAttribute(with: coder)
    }

    /// A convenience not in Core Data: `NSAttributeDescription(name: "price", type: .integer32AttributeType)`.
    public convenience init(name: String, type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil) {
        self.init()
        self.name = name
        self.attributeType = type
        self.isOptional = optional
        self.defaultValue = defaultValue
    }

    /// Mirrors `attributeValueClassName`: the class of the attribute's values, from its type; settable, as
    /// in Core Data, to name the class of a transformable attribute's values (a model file's
    /// `customClassName`, such as `"[String]"` or `"NSArray"`).
    public var attributeValueClassName: String? {
        get { customClassName ?? attributeType.valueClassName }
        set { customClassName = newValue == attributeType.valueClassName ? nil : newValue }
    }

    public override var description: String {
        "(\(name), \(attributeType.name), \(isOptional ? "optional" : "required"))"
    }
}

/// Mirrors Core Data's `NSDerivedAttributeDescription`: an attribute whose value the store computes from
/// `derivationExpression` when rows are saved (a model file's `derived="YES"`): a key path through
/// to-ones, `canonical:(keyPath)`, a to-many's `@count`, or `now()` (see docs/Store.md, "Derived
/// attributes"). A value the app sets is not saved: the save writes the computed one, and the saved
/// objects hold it afterwards (Core Data needs a refresh to show it).
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// Mirrors `derivationExpression`: such as `canonical:(name)`, `now()`, `animals.@count`.
    public var derivationExpression: NSExpression? = nil
    /// Core Data's private filtering predicate of a derived attribute, as a compiled model holds it
    /// (`NSFilteringPredicate`): kept for the version hash, which includes it; not acted on.
    var filteringPredicate: NSPredicate?

    public override init() { super.init() }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): also `NSDerivationExpression` (and the filtering
    /// predicate, `NSFilteringPredicate`, which only the version hash reads).
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        guard decodeDerivedAttribute(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`): read-only, with `NSDerivationExpression`.
    open override func encode(with coder: NSCoder) {
        encodeProperty(with: coder, readOnly: true, cloudEncryption: allowsCloudEncryption)
        encodeAttribute(with: coder)
        coder.encode(derivationExpression, forKey: "NSDerivationExpression")
        coder.encode(filteringPredicate, forKey: "NSFilteringPredicate")
    }
}

extension NSAttributeType {
    /// The class name Core Data gives values of the type (`attributeValueClassName`).
    var valueClassName: String? {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
             .floatAttributeType, .booleanAttributeType: return "NSNumber"
        case .decimalAttributeType: return "NSDecimalNumber"
        case .stringAttributeType: return "NSString"
        case .dateAttributeType: return "NSDate"
        case .binaryDataAttributeType: return "NSData"
        case .UUIDAttributeType: return "NSUUID"
        case .URIAttributeType: return "NSURL"
        case .objectIDAttributeType: return "NSManagedObjectID"
        case .compositeAttributeType: return "NSDictionary"
        case .undefinedAttributeType, .transformableAttributeType: return nil
        }
    }
}

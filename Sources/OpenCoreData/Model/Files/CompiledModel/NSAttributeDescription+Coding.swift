import Foundation

/// The archived form of attributes (`NSAttributeDescription`, `NSDerivedAttributeDescription`,
/// `NSCompositeAttributeDescription`), with the keys of Core Data's compiled models.
extension NSAttributeDescription {
    /// `NSFlagsKey`: a maximum (1) and a minimum (2) are stored as `NSMaxValueName` / `NSMinValueName`
    /// instead of validation predicates; 4 external binary storage, 16 value preserved in history, 32 a
    /// file-backed future (not supported here: read as an ordinary attribute).
    enum Flags {
        static let hasMaximum: Int64 = 1, hasMinimum: Int64 = 2, externalStorage: Int64 = 4, preservedInHistory: Int64 = 16
    }

    /// The value classes a default value may be of (a transformable attribute's may also be an app's class:
    /// see ``ModelArchiveClasses``).
    static let defaultValueClasses: [AnyClass] = [NSString.self, NSNumber.self, NSDate.self, NSData.self, NSUUID.self, NSURL.self,
                                                  NSArray.self, NSDictionary.self, NSSet.self]

    /// What `init?(coder:)` reads for an attribute: `NSAttributeType`, `NSAttributeValueClassName`,
    /// `NSValueTransformerName`, `NSDefaultValue`, `NSFlagsKey` with the bounds it announces, the cloud
    /// encryption flag. Bounds become validation predicates (before the archived ones), as a model file's
    /// minimum and maximum do here.
    func decodeAttribute(from coder: NSCoder) -> Bool {
        let raw = coder.decodeInt64(forKey: "NSAttributeType")
        guard raw >= 0, let type = NSAttributeType(rawValue: UInt(raw)) else {
            return ModelArchiveDecoder.failed(coder, "unknown attribute type \(raw)")
        }
        attributeType = type
        let transformer = ArchiveKeys.string(coder, "NSValueTransformerName")
        valueTransformerName = transformer == "NSSecureUnarchiveFromDataTransformerName" ? "NSSecureUnarchiveFromData" : transformer
        if let className = ArchiveKeys.string(coder, "NSAttributeValueClassName") { attributeValueClassName = className }
        let classes = type == .transformableAttributeType ? [ModelArchiveClasses.anyClass] : Self.defaultValueClasses
        defaultValue = Self.normalized(ArchiveKeys.object(coder, "NSDefaultValue", classes), for: type)
        let flags = coder.decodeInt64(forKey: "NSFlagsKey")
        allowsExternalBinaryDataStorage = flags & Flags.externalStorage != 0
        preservesValueInHistoryOnDeletion = flags & Flags.preservedInHistory != 0
        allowsCloudEncryption = PropertyArchiveFlags(coder).allowsCloudEncryption
        if flags & (Flags.hasMinimum | Flags.hasMaximum) != 0, let kind = ModelFileValues.boundKind(of: type) {
            let minimum = flags & Flags.hasMinimum != 0 ? bound(coder, "NSMinValueName", kind) : nil
            let maximum = flags & Flags.hasMaximum != 0 ? bound(coder, "NSMaxValueName", kind) : nil
            let (predicates, codes) = ModelFileValues.validation(kind: kind, minimum: minimum, maximum: maximum, pattern: nil)
            setValidation(predicates: predicates + validationPredicates, warnings: codes.map { NSNumber(value: $0) } + validationWarnings)
        }
        return coder.error == nil
    }

    /// A bound as Core Data stores it: an integer for whole-number types and lengths, a `Double` for the
    /// others (seconds since 2001 for dates).
    private func bound(_ coder: NSCoder, _ key: String, _ kind: ModelFileValues.BoundKind) -> Value {
        switch (kind, attributeType) {
        case (.length, _), (_, .integer16AttributeType), (_, .integer32AttributeType), (_, .integer64AttributeType):
            return .int(coder.decodeInt64(forKey: key))
        case (.date, _): return .date(Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: key)))
        default: return .double(coder.decodeDouble(forKey: key))
        }
    }

    /// A default value in the form this library keeps for the type: a `Float` attribute's number as a
    /// `Float`, a `Double`'s as a `Double` (Core Data does the same), a decimal's as an `NSDecimalNumber`.
    static func normalized(_ value: Any?, for type: NSAttributeType) -> Any? {
        guard let number = value as? NSNumber, !(number is NSDecimalNumber) else { return value }
        switch type {
        case .floatAttributeType: return NSNumber(value: number.floatValue)
        case .doubleAttributeType: return NSNumber(value: number.doubleValue)
        case .decimalAttributeType: return NSDecimalNumber(decimal: number.decimalValue)
        default: return number
        }
    }

    func encodeAttribute(with coder: NSCoder) {
        coder.encode(Int32(attributeType.rawValue), forKey: "NSAttributeType")
        coder.encode(attributeValueClassName.map { NSString(string: $0) }, forKey: "NSAttributeValueClassName")
        coder.encode(ModelArchiveEncoding.archivable(defaultValue), forKey: "NSDefaultValue")
        coder.encode(valueTransformerName.map { NSString(string: $0) }, forKey: "NSValueTransformerName")
        var flags: Int32 = 0
        if allowsExternalBinaryDataStorage { flags |= Int32(Flags.externalStorage) }
        if preservesValueInHistoryOnDeletion { flags |= Int32(Flags.preservedInHistory) }
        coder.encode(flags, forKey: "NSFlagsKey")
    }
}

extension NSDerivedAttributeDescription {
    /// What `init?(coder:)` reads besides the attribute's keys: `NSDerivationExpression`, `NSFilteringPredicate`.
    func decodeDerivedAttribute(from coder: NSCoder) -> Bool {
        derivationExpression = ArchiveKeys.object(coder, "NSDerivationExpression", [NSExpression.self]) as? NSExpression
        derivationExpression?.allowEvaluation()
        filteringPredicate = ArchiveKeys.object(coder, "NSFilteringPredicate", [NSPredicate.self]) as? NSPredicate
        return coder.error == nil
    }
}

extension NSCompositeAttributeDescription {
    /// What `init?(coder:)` reads besides the attribute's keys: the elements (`NSCompositeElements`).
    func decodeComposite(from coder: NSCoder) -> Bool {
        elements = ArchiveKeys.array(coder, "NSCompositeElements", of: [NSAttributeDescription.self], as: NSAttributeDescription.self) ?? []
        return coder.error == nil
    }
}

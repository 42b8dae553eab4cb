import Foundation

/// A property's flags as Core Data archives them: `_P` (a bit each; bit 0 is always set, so that 0 means
/// "not written"), with the same flags as separate keys for readers without `_P`.
struct PropertyArchiveFlags {
    var isOptional = false, isReadOnly = false, isTransient = false, isIndexedBySpotlight = false
    var isOrdered = false, allowsCloudEncryption = false
    /// Whether the keys that `_P` says are empty (validation predicates, warnings, userInfo, version hash
    /// modifier) were written.
    var hasValidationPredicates = true, hasValidationWarnings = true, hasUserInfo = true, hasVersionHashModifier = true

    static let optional = 0x2, readOnly = 0x4, transient = 0x8, noPredicates = 0x10, noWarnings = 0x20
    static let noUserInfo = 0x40, noVersionHashModifier = 0x80, spotlight = 0x100, ordered = 0x400, cloudEncryption = 0x800

    init() {}

    init(_ coder: NSCoder) {
        let p = Int(coder.decodeInt64(forKey: "_P"))
        guard p != 0 else {
            isOptional = coder.decodeBool(forKey: "NSIsOptional")
            isReadOnly = coder.decodeBool(forKey: "NSIsReadOnly")
            isTransient = coder.decodeBool(forKey: "NSIsTransient")
            isIndexedBySpotlight = coder.decodeBool(forKey: "NSIndexedBySpotlight")
            isOrdered = coder.decodeBool(forKey: "NSIsOrdered")
            allowsCloudEncryption = coder.decodeBool(forKey: "NSAllowsCloudEncryption")
            return
        }
        isOptional = p & Self.optional != 0
        isReadOnly = p & Self.readOnly != 0
        isTransient = p & Self.transient != 0
        isIndexedBySpotlight = p & Self.spotlight != 0
        isOrdered = p & Self.ordered != 0
        allowsCloudEncryption = p & Self.cloudEncryption != 0
        hasValidationPredicates = p & Self.noPredicates == 0
        hasValidationWarnings = p & Self.noWarnings == 0
        hasUserInfo = p & Self.noUserInfo == 0
        hasVersionHashModifier = p & Self.noVersionHashModifier == 0
    }
}

extension NSPropertyDescription: NSSecureCoding {
    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`): `true`.
    public static var supportsSecureCoding: Bool { true }

    /// What `init?(coder:)` reads for every property: `NSPropertyName`, the flags (`_P` or the `NSIs…`
    /// keys), `NSValidationPredicates` and `NSValidationWarnings`, `NSUserInfo`, `NSVersionHashModifier`,
    /// `NSRenamingIdentifier` (the same as the name means none), `NSIsIndexed`. `NSEntity` is not read:
    /// the entity whose properties hold the property is its entity.
    func decodeProperty(from coder: NSCoder) -> Bool {
        ModelArchiveDecoder.noteDecoding(self, by: coder)
        guard let name = ArchiveKeys.string(coder, "NSPropertyName"), !name.isEmpty else {
            return ModelArchiveDecoder.failed(coder, "a property without a name (NSPropertyName)")
        }
        self.name = name
        let flags = PropertyArchiveFlags(coder)
        isOptional = flags.isOptional
        isTransient = flags.isTransient
        isIndexedBySpotlight = flags.isIndexedBySpotlight
        isIndexed = coder.decodeBool(forKey: "NSIsIndexed")
        let renaming = ArchiveKeys.string(coder, "NSRenamingIdentifier")
        renamingIdentifier = renaming == name ? nil : renaming
        if flags.hasVersionHashModifier { versionHashModifier = ArchiveKeys.string(coder, "NSVersionHashModifier").flatMap { $0.isEmpty ? nil : $0 } }
        if flags.hasUserInfo { userInfo = ArchiveKeys.userInfo(coder) }
        let predicates = flags.hasValidationPredicates ? ArchiveKeys.array(coder, "NSValidationPredicates", of: [NSPredicate.self], as: NSPredicate.self) ?? [] : []
        let warnings = flags.hasValidationWarnings ? ArchiveKeys.array(coder, "NSValidationWarnings", of: [NSString.self, NSNumber.self], as: Any.self) ?? [] : []
        guard predicates.count == warnings.count else {
            return ModelArchiveDecoder.failed(coder, "\(predicates.count) validation predicates but \(warnings.count) warnings")
        }
        // A model's own predicates are trusted as Core Data trusts them: it allows their evaluation.
        for predicate in predicates { predicate.allowEvaluation() }
        setValidation(predicates: predicates, warnings: warnings)
        return coder.error == nil
    }

    /// What ``encode(with:)`` writes for every property, under Apple's keys.
    func encodeProperty(with coder: NSCoder, readOnly: Bool = false, ordered: Bool = false, cloudEncryption: Bool = false) {
        var p = 1
        func flag(_ on: Bool, _ bit: Int, _ key: String) {
            guard on else { return }
            coder.encode(true, forKey: key)
            p |= bit
        }
        flag(isOptional, PropertyArchiveFlags.optional, "NSIsOptional")
        flag(readOnly, PropertyArchiveFlags.readOnly, "NSIsReadOnly")
        flag(isTransient, PropertyArchiveFlags.transient, "NSIsTransient")
        flag(isIndexedBySpotlight, PropertyArchiveFlags.spotlight, "NSIndexedBySpotlight")
        flag(ordered, PropertyArchiveFlags.ordered, "NSIsOrdered")
        flag(cloudEncryption, PropertyArchiveFlags.cloudEncryption, "NSAllowsCloudEncryption")
        coder.encode(NSString(string: renamingIdentifier ?? name), forKey: "NSRenamingIdentifier")
        coder.encode(NSString(string: name), forKey: "NSPropertyName")
        if let entity { coder.encodeConditionalObject(entity, forKey: "NSEntity") }
        if validationPredicates.isEmpty { p |= PropertyArchiveFlags.noPredicates } else { coder.encode(validationPredicates as NSArray, forKey: "NSValidationPredicates") }
        if validationWarnings.isEmpty { p |= PropertyArchiveFlags.noWarnings } else { coder.encode(validationWarnings as NSArray, forKey: "NSValidationWarnings") }
        if let userInfo, !userInfo.isEmpty, let plist = ModelArchiveEncoding.plistDictionary(userInfo) {
            coder.encode(plist, forKey: "NSUserInfo")
        } else {
            p |= PropertyArchiveFlags.noUserInfo
        }
        if let modifier = versionHashModifier, !modifier.isEmpty { coder.encode(NSString(string: modifier), forKey: "NSVersionHashModifier") } else {
            p |= PropertyArchiveFlags.noVersionHashModifier
        }
        if isIndexed { coder.encode(true, forKey: "NSIsIndexed") }
        coder.encode(Int32(p), forKey: "_P")
    }
}

extension NSRelationshipDescription {
    /// What `init?(coder:)` reads for a relationship: `_NSDestinationEntityName`,
    /// `_NSInverseRelationshipName`, `NSDeleteRule`, `NSMinCount`, `NSMaxCount` (32-bit: Core Data's -1, as
    /// a Swift model sets `Int.max`, reads 4294967295), the ordered flag. The destination and inverse
    /// objects (`NSDestinationEntity`, `NSInverseRelationship`) are found by these names when the model is
    /// decoded, or when a coordinator loads it.
    func decodeRelationship(from coder: NSCoder) -> Bool {
        guard let destination = ArchiveKeys.string(coder, "_NSDestinationEntityName"), !destination.isEmpty else {
            return ModelArchiveDecoder.failed(coder, "a relationship without a destination entity name (_NSDestinationEntityName)")
        }
        destinationName = destination
        inverseName = ArchiveKeys.string(coder, "_NSInverseRelationshipName").flatMap { $0.isEmpty ? nil : $0 }
        let rule = coder.decodeInt64(forKey: "NSDeleteRule")
        guard rule >= 0, let deleteRule = NSDeleteRule(rawValue: UInt(rule)) else {
            return ModelArchiveDecoder.failed(coder, "unknown delete rule \(rule)")
        }
        self.deleteRule = deleteRule
        minCount = Int(UInt32(truncatingIfNeeded: coder.decodeInt64(forKey: "NSMinCount")))
        maxCount = Int(UInt32(truncatingIfNeeded: coder.decodeInt64(forKey: "NSMaxCount")))
        isOrdered = PropertyArchiveFlags(coder).isOrdered
        return coder.error == nil
    }

    func encodeRelationship(with coder: NSCoder) {
        coder.encode(Int32(deleteRule.rawValue), forKey: "NSDeleteRule")
        if let destinationEntity { coder.encodeConditionalObject(destinationEntity, forKey: "NSDestinationEntity") }
        if let inverseRelationship { coder.encodeConditionalObject(inverseRelationship, forKey: "NSInverseRelationship") }
        coder.encode(Int32(truncatingIfNeeded: maxCount), forKey: "NSMaxCount")
        coder.encode(Int32(truncatingIfNeeded: minCount), forKey: "NSMinCount")
        coder.encode(NSString(string: destinationEntity?.name ?? destinationName ?? ""), forKey: "_NSDestinationEntityName")
        if let inverse = inverseRelationship?.name ?? inverseName { coder.encode(NSString(string: inverse), forKey: "_NSInverseRelationshipName") }
    }
}

extension NSFetchedPropertyDescription {
    /// What `init?(coder:)` reads for a fetched property: `NSFetchRequest`, whose entity
    /// `_NSFetchRequestEntityName` also names.
    func decodeFetchedProperty(from coder: NSCoder) -> Bool {
        fetchRequest = ArchiveKeys.object(coder, "NSFetchRequest", [NSFetchRequest<NSFetchRequestResult>.self]) as? NSFetchRequest<NSFetchRequestResult>
        if let request = fetchRequest, request.entityName == nil {
            request.entityName = ArchiveKeys.string(coder, "_NSFetchRequestEntityName")
        }
        return coder.error == nil
    }

    func encodeFetchedProperty(with coder: NSCoder) {
        if let fetchRequest { coder.encode(fetchRequest, forKey: "NSFetchRequest") }
        if let name = fetchRequest?.entityName { coder.encode(NSString(string: name), forKey: "_NSFetchRequestEntityName") }
    }
}

extension NSExpressionDescription {
    /// What `init?(coder:)` reads for an expression description: `NSExpression` and its result type
    /// (`NSExpressionType`).
    func decodeExpressionDescription(from coder: NSCoder) -> Bool {
        expression = ArchiveKeys.object(coder, "NSExpression", [NSExpression.self]) as? NSExpression
        expression?.allowEvaluation()
        let type = coder.decodeInt64(forKey: "NSExpressionType")
        guard type >= 0, let resultType = NSAttributeType(rawValue: UInt(type)) else {
            return ModelArchiveDecoder.failed(coder, "unknown expression result type \(type)")
        }
        expressionResultType = resultType
        return coder.error == nil
    }

    func encodeExpressionDescription(with coder: NSCoder) {
        if let expression { coder.encode(expression, forKey: "NSExpression") }
        coder.encode(Int(expressionResultType.rawValue), forKey: "NSExpressionType")
    }
}

import Foundation

/// Mirrors Core Data's `NSAttributeDescription`.
public class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    /// Mirrors `attributeType`.
    public var attributeType: NSAttributeType = .undefinedAttributeType
    /// Mirrors `defaultValue`: given to each newly inserted object.
    public var defaultValue: Any? = nil

    public override init() { super.init() }

    /// A convenience not in Core Data: `NSAttributeDescription(name: "price", type: .integer32AttributeType)`.
    public convenience init(name: String, type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil) {
        self.init()
        self.name = name
        self.attributeType = type
        self.isOptional = optional
        self.defaultValue = defaultValue
    }

    /// Mirrors `attributeValueClassName`.
    public var attributeValueClassName: String? {
        switch attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
             .floatAttributeType, .booleanAttributeType: return "NSNumber"
        case .decimalAttributeType: return "NSDecimalNumber"
        case .stringAttributeType: return "NSString"
        case .dateAttributeType: return "NSDate"
        case .binaryDataAttributeType: return "NSData"
        case .UUIDAttributeType: return "NSUUID"
        case .URIAttributeType: return "NSURL"
        case .undefinedAttributeType: return nil
        }
    }

    public override var description: String {
        "(\(name), \(attributeType.name), \(isOptional ? "optional" : "required"))"
    }
}

import Foundation

extension NSAttributeDescription {
    /// Mirrors `NSAttributeDescription.AttributeType`, the Swift form of `NSAttributeType` that
    /// ``NSAttributeDescription/type`` takes.
    public struct AttributeType: Hashable, Sendable, RawRepresentable {
        /// The `NSAttributeType` it stands for.
        public let rawValue: NSAttributeType
        /// Mirrors `init(rawValue:)`.
        public init(rawValue: NSAttributeType) { self.rawValue = rawValue }

        /// Mirrors `AttributeType.undefined`.
        public static let undefined = AttributeType(rawValue: .undefinedAttributeType)
        /// Mirrors `AttributeType.integer16`.
        public static let integer16 = AttributeType(rawValue: .integer16AttributeType)
        /// Mirrors `AttributeType.integer32`.
        public static let integer32 = AttributeType(rawValue: .integer32AttributeType)
        /// Mirrors `AttributeType.integer64`.
        public static let integer64 = AttributeType(rawValue: .integer64AttributeType)
        /// Mirrors `AttributeType.decimal`.
        public static let decimal = AttributeType(rawValue: .decimalAttributeType)
        /// Mirrors `AttributeType.double`.
        public static let double = AttributeType(rawValue: .doubleAttributeType)
        /// Mirrors `AttributeType.float`.
        public static let float = AttributeType(rawValue: .floatAttributeType)
        /// Mirrors `AttributeType.string`.
        public static let string = AttributeType(rawValue: .stringAttributeType)
        /// Mirrors `AttributeType.boolean`.
        public static let boolean = AttributeType(rawValue: .booleanAttributeType)
        /// Mirrors `AttributeType.date`.
        public static let date = AttributeType(rawValue: .dateAttributeType)
        /// Mirrors `AttributeType.binaryData`.
        public static let binaryData = AttributeType(rawValue: .binaryDataAttributeType)
        /// Mirrors `AttributeType.uuid`.
        public static let uuid = AttributeType(rawValue: .UUIDAttributeType)
        /// Mirrors `AttributeType.uri`.
        public static let uri = AttributeType(rawValue: .URIAttributeType)
        /// Mirrors `AttributeType.transformable`.
        public static let transformable = AttributeType(rawValue: .transformableAttributeType)
        /// Mirrors `AttributeType.objectID`.
        public static let objectID = AttributeType(rawValue: .objectIDAttributeType)
        /// Mirrors `AttributeType.composite` (iOS 17, macOS 14): an ``NSCompositeAttributeDescription``'s.
        public static let composite = AttributeType(rawValue: .compositeAttributeType)
    }

    /// Mirrors `type`: the attribute's type in its Swift form, the same value as ``attributeType``
    /// (setting either sets both).
    public var type: AttributeType {
        get { AttributeType(rawValue: attributeType) }
        set { attributeType = newValue.rawValue }
    }
}

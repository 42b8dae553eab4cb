import Foundation

/// Not in Core Data: the one table of the Swift types a `@Managed` property may have for an attribute
/// (docs/ModelClasses.md, "Supported property types", says the same in prose).
///
/// Each row names a type, the attribute types a property of that type fits (checked when a coordinator
/// loads the model), and the attribute types Xcode's class generation writes it for, spelled as Xcode
/// writes it (the load's advice: "declare it Int16 or NSNumber?"). A row's type conforms to
/// `_ManagedMacroSupport.AttributeValue`, whose requirements convert its values to and from a storage
/// slot: that conformance is what makes the macro's generic getter and setter accept the type. The types
/// Xcode writes most also have getters of their own (NSManagedObject+Managed.swift), for speed only:
/// each reads what the conversion reads (`ManagedAttributeTypeTests` compares them row by row).
enum ManagedAttributeTypes {
    struct Row: Sendable {
        /// The type (a row is made only of a type that conforms).
        let type: ObjectIdentifier
        /// The attribute types a property of the type fits.
        let fits: Set<NSAttributeType>
        /// The attribute types Xcode writes the type for, and how it spells it there.
        let writtenByXcode: [(NSAttributeType, String)]

        init(type: (some _ManagedMacroSupport.AttributeValue).Type, fits: Set<NSAttributeType>,
             writtenByXcode: [(NSAttributeType, String)]) {
            self.type = ObjectIdentifier(type)
            self.fits = fits
            self.writtenByXcode = writtenByXcode
        }
    }

    private static let integers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType]

    /// The rows, in the order the advice lists types (Xcode's own type first, then `NSNumber?`).
    static let rows: [Row] = [
        Row(type: String.self, fits: [.stringAttributeType], writtenByXcode: [(.stringAttributeType, "String?")]),
        Row(type: Date.self, fits: [.dateAttributeType], writtenByXcode: [(.dateAttributeType, "Date?")]),
        Row(type: Int16.self, fits: integers, writtenByXcode: [(.integer16AttributeType, "Int16")]),
        Row(type: Int32.self, fits: integers, writtenByXcode: [(.integer32AttributeType, "Int32")]),
        Row(type: Int64.self, fits: integers, writtenByXcode: [(.integer64AttributeType, "Int64")]),
        Row(type: Int.self, fits: integers, writtenByXcode: []),
        // A date attribute read as seconds since 2001-01-01: Xcode's `TimeInterval` with "Use Scalar Type".
        Row(type: Double.self, fits: [.doubleAttributeType, .floatAttributeType, .dateAttributeType],
            writtenByXcode: [(.doubleAttributeType, "Double"), (.dateAttributeType, "TimeInterval")]),
        Row(type: Float.self, fits: [.doubleAttributeType, .floatAttributeType], writtenByXcode: [(.floatAttributeType, "Float")]),
        Row(type: Bool.self, fits: [.booleanAttributeType], writtenByXcode: [(.booleanAttributeType, "Bool")]),
        Row(type: NSNumber.self,
            fits: integers.union([.doubleAttributeType, .floatAttributeType, .booleanAttributeType, .decimalAttributeType]),
            writtenByXcode: [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
                             .floatAttributeType, .booleanAttributeType].map { ($0, "NSNumber?") }),
        Row(type: Decimal.self, fits: [.decimalAttributeType], writtenByXcode: [(.decimalAttributeType, "Decimal?")]),
        Row(type: NSDecimalNumber.self, fits: [.decimalAttributeType], writtenByXcode: [(.decimalAttributeType, "NSDecimalNumber?")]),
        // Transformable attributes keep their values as data.
        Row(type: Data.self, fits: [.binaryDataAttributeType, .transformableAttributeType], writtenByXcode: [(.binaryDataAttributeType, "Data?")]),
        Row(type: UUID.self, fits: [.UUIDAttributeType], writtenByXcode: [(.UUIDAttributeType, "UUID?")]),
        Row(type: URL.self, fits: [.URIAttributeType], writtenByXcode: [(.URIAttributeType, "URL?")]),
    ]

    private static let rowsByType: [ObjectIdentifier: Row] =
        Dictionary(uniqueKeysWithValues: rows.map { ($0.type, $0) })

    /// The row of a property's declared type: optionals unwrapped, a class without a row of its own
    /// taking its superclass's (an `NSNumber` subclass is an `NSNumber`).
    static func row(for declared: Any.Type) -> Row? {
        var type = declared
        while let wrapped = type as? any OptionalType.Type { type = wrapped.wrappedType }
        while true {
            if let row = rowsByType[ObjectIdentifier(type)] { return row }
            guard let cls = type as? AnyClass, let superclass = _getSuperclass(cls) else { return nil }
            type = superclass
        }
    }

    /// Whether a property declared `declared` fits an attribute of type `attributeType`.
    static func fits(_ declared: Any.Type, _ attributeType: NSAttributeType) -> Bool {
        row(for: declared)?.fits.contains(attributeType) ?? false
    }

    /// ": declare it Int16 or NSNumber?" — the types Xcode writes for an attribute type; empty for the
    /// types that take any property (undefined, object ID).
    static func advice(for attributeType: NSAttributeType) -> String {
        switch attributeType {
        case .undefinedAttributeType, .objectIDAttributeType: return ""
        case .transformableAttributeType: return ": declare it its value's type (Data, an NSCoding class or a Codable type)"
        case .compositeAttributeType: return ": declare it [String: Any]?"
        default:
            let types = rows.flatMap { row in row.writtenByXcode.filter { $0.0 == attributeType }.map(\.1) }
            return types.isEmpty ? "" : ": declare it " + types.joined(separator: " or ")
        }
    }
}

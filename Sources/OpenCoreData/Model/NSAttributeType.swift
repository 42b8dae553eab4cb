import Foundation

/// Mirrors Core Data's `NSAttributeType`, with Apple's raw values.
public enum NSAttributeType: UInt, Sendable, Hashable, CaseIterable {
    case undefinedAttributeType = 0
    case integer16AttributeType = 100
    case integer32AttributeType = 200
    case integer64AttributeType = 300
    case decimalAttributeType = 400
    case doubleAttributeType = 500
    case floatAttributeType = 600
    case stringAttributeType = 700
    case booleanAttributeType = 800
    case dateAttributeType = 900
    case binaryDataAttributeType = 1000
    case UUIDAttributeType = 1100
    case URIAttributeType = 1200
    /// Mirrors `.transformableAttributeType`: a value of any type, kept in the store as the data its
    /// `ValueTransformer` (named by `valueTransformerName`, default `NSSecureUnarchiveFromData`) makes of
    /// it, and made again from that data when fetched.
    case transformableAttributeType = 1800
    /// Mirrors `.objectIDAttributeType`: an object ID. Core Data uses it for expression results; a model
    /// file may declare it. We accept it on transient attributes only (any value, kept in memory).
    case objectIDAttributeType = 2000
    /// Mirrors `.compositeAttributeType` (iOS 17, macOS 14): the type of an
    /// ``NSCompositeAttributeDescription``, whose value is a dictionary of its elements' values. Its
    /// elements may be of any type but undefined, object ID, and binary data with external storage.
    case compositeAttributeType = 2100

    /// The kind of value a comparison with this attribute can meet (numbers compare with numbers, …).
    var valueKind: ValueKind {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
             .decimalAttributeType, .doubleAttributeType, .floatAttributeType: return .number
        case .stringAttributeType: return .string
        case .dateAttributeType: return .date
        case .binaryDataAttributeType, .transformableAttributeType: return .data
        case .UUIDAttributeType: return .uuid
        case .URIAttributeType: return .url
        case .undefinedAttributeType, .objectIDAttributeType: return .any
        case .compositeAttributeType: return .other
        }
    }

    var name: String {
        switch self {
        case .undefinedAttributeType: return "undefined"
        case .integer16AttributeType: return "Integer 16"
        case .integer32AttributeType: return "Integer 32"
        case .integer64AttributeType: return "Integer 64"
        case .decimalAttributeType: return "Decimal"
        case .doubleAttributeType: return "Double"
        case .floatAttributeType: return "Float"
        case .stringAttributeType: return "String"
        case .booleanAttributeType: return "Boolean"
        case .dateAttributeType: return "Date"
        case .binaryDataAttributeType: return "Binary Data"
        case .UUIDAttributeType: return "UUID"
        case .URIAttributeType: return "URI"
        case .transformableAttributeType: return "Transformable"
        case .objectIDAttributeType: return "ObjectID"
        case .compositeAttributeType: return "Composite"
        }
    }

    /// Whether `value` is already in the attribute's own representation (what ``coerce(_:)`` returns
    /// unchanged): a check without copying the value, made before the full conversion.
    @inline(__always) func holdsOwnRepresentation(_ value: Value) -> Bool {
        switch (self, value) {
        case (.stringAttributeType, .string), (.integer64AttributeType, .int), (.booleanAttributeType, .bool),
             (.dateAttributeType, .date), (.binaryDataAttributeType, .data), (.UUIDAttributeType, .uuid),
             (.URIAttributeType, .url):
            return true
        case (.integer32AttributeType, .int(let i)): return i >= Int64(Int32.min) && i <= Int64(Int32.max)
        case (.integer16AttributeType, .int(let i)): return i >= Int64(Int16.min) && i <= Int64(Int16.max)
        case (.doubleAttributeType, .double(let d)): return !d.isNaN
        default: return false
        }
    }

    /// Converts a value assigned to the attribute to the attribute's own representation, or `nil` when
    /// the value is of the wrong kind (a string for an integer attribute, a fraction for an integer, …).
    func coerce(_ value: Value) -> Value? {
        switch (self, value) {
        case (_, .null): return .null
        case (.undefinedAttributeType, _), (.objectIDAttributeType, _): return value
        case (.integer16AttributeType, _), (.integer32AttributeType, _), (.integer64AttributeType, _):
            let range: ClosedRange<Int64> = self == .integer16AttributeType ? Int64(Int16.min)...Int64(Int16.max)
                : self == .integer32AttributeType ? Int64(Int32.min)...Int64(Int32.max) : Int64.min...Int64.max
            switch value {
            case .int(let i): return range.contains(i) ? .int(i) : nil
            case .bool(let b): return .int(b ? 1 : 0)
            case .double(let d):
                guard d.rounded() == d, d >= -9.2e18, d <= 9.2e18, range.contains(Int64(d)) else { return nil }
                return .int(Int64(d))
            case .decimal(let d):
                let n = NSDecimalNumber(decimal: d)
                guard Decimal(n.int64Value) == d, range.contains(n.int64Value) else { return nil }
                return .int(n.int64Value)
            default: return nil
            }
        case (.booleanAttributeType, .bool): return value
        case (.booleanAttributeType, .int(let i)) where i == 0 || i == 1: return .bool(i == 1)
        case (.doubleAttributeType, _), (.floatAttributeType, _):
            guard let d = value.doubleValue, !d.isNaN else { return nil }
            return .double(self == .floatAttributeType ? Double(Float(d)) : d)
        case (.decimalAttributeType, .decimal(let d)): return d.isNaN ? nil : value
        case (.decimalAttributeType, .int(let i)): return .decimal(Decimal(i))
        case (.decimalAttributeType, .double(let d)): return Decimal(shortestDigitsOf: d).map { .decimal($0) }
        case (.stringAttributeType, .string): return value
        case (.dateAttributeType, .date): return value
        case (.binaryDataAttributeType, .data): return value
        // Any value: its transformer decides at save (see AttributeTransform).
        case (.transformableAttributeType, _): return value
        case (.UUIDAttributeType, .uuid): return value
        case (.URIAttributeType, .url): return value
        default: return nil
        }
    }
}

/// The kinds of values that compare with each other. `other` (a collection, or an object such as a
/// managed object) equals no attribute value: `name == %@` with an array is false, `!=` true.
/// `object(root:)` is a saved object's key (`Z_PK`) in the table of hierarchy `root`: a to-one
/// relationship's column, `SELF`, or a managed object or object ID given as an argument. Keys compare
/// only with keys of the same hierarchy, and only for equality.
enum ValueKind: Equatable {
    case number, string, date, data, uuid, url, any, other
    case object(root: Int)
    /// An entity: the `Z_ENT` column an object's `entity` reads, an `NSEntityDescription` constant.
    case entity

    init?(_ value: Value) {
        switch value {
        case .bool, .int, .double, .decimal: self = .number
        case .string: self = .string
        case .date: self = .date
        case .data: self = .data
        case .uuid: self = .uuid
        case .url: self = .url
        case .array, .set, .object, .collection: self = .other
        case .null: return nil
        }
    }
}

import Foundation
import OpenCoreData

/// One value of a fetched object, typed by what the model says the property holds.
package enum Cell: Equatable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    /// A decimal number, as its exact decimal text.
    case decimal(String)
    case date(Date)
    case data(Data)
    /// An object, by its ID (`Entity/pN`: the path of its `uriRepresentation()`).
    case object(String)
    /// A to-many relationship's objects by ID (in the relationship's order when ordered, else by ID).
    case objects([String])

    /// An object's ID as `Entity/pN`.
    static func id(_ object: NSManagedObject) -> String {
        String(object.objectID.uriRepresentation().path.dropFirst())
    }

    /// The value of `property` for `object`, read with `value(forKey:)`.
    init(_ property: NSPropertyDescription, of object: NSManagedObject) {
        let value = object.value(forKey: property.name)
        if let relationship = property as? NSRelationshipDescription {
            self = Self.related(value, ordered: relationship.isOrdered)
        } else if let attribute = property as? NSAttributeDescription {
            self = Self.attribute(value, type: attribute.attributeType)
        } else {
            self = value.map { .text("\($0)") } ?? .null
        }
    }

    private static func related(_ value: Any?, ordered: Bool) -> Cell {
        switch value {
        case let object as NSManagedObject: return .object(id(object))
        case let set as NSOrderedSet: return .objects(set.array.compactMap { ($0 as? NSManagedObject).map(id) })
        case let set as Set<NSManagedObject>: return .objects(set.map(id).sorted(by: Self.idOrder))
        case let set as NSSet: return .objects(set.allObjects.compactMap { ($0 as? NSManagedObject).map(id) }.sorted(by: Self.idOrder))
        default: return .null
        }
    }

    /// IDs by entity, then by key as a number (`p2` before `p10`).
    private static func idOrder(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: .numeric) == .orderedAscending
    }

    private static func attribute(_ value: Any?, type: NSAttributeType) -> Cell {
        guard let value else { return .null }
        let number = value as? NSNumber
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if let number { return .integer(number.int64Value) }
        case .doubleAttributeType, .floatAttributeType:
            if let number { return .real(number.doubleValue) }
        case .booleanAttributeType:
            if let number { return .bool(number.boolValue) }
        case .decimalAttributeType:
            if let decimal = value as? Decimal { return .decimal("\(decimal)") }
            if let number { return .decimal(number.description) }
        default: break
        }
        switch value {
        case let text as String: return .text(text)
        case let date as Date: return .date(date)
        case let data as Data: return .data(data)
        case let uuid as UUID: return .text(uuid.uuidString)
        case let url as URL: return .text(url.absoluteString)
        case let id as NSManagedObjectID: return .object(String(id.uriRepresentation().path.dropFirst()))
        default: return .text("\(value)")
        }
    }
}

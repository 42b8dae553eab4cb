import Foundation
import OpenCoreDataPredicates

/// Key-value coding of an object ID's properties, as Objective-C's reaches them on Apple platforms:
/// `objectID.entity.name`, `objectID.isTemporaryID` in in-memory predicates and sorts, and
/// `value(forKey:)`.
extension NSManagedObjectID: KeyValueCoding {
    /// Mirrors `value(forKey:)`: `entity`, `isTemporaryID` (or `temporaryID`), `persistentStore`,
    /// `uriRepresentation` (or Objective-C's `URIRepresentation`) and `self`. Another key traps, as
    /// Core Data raises; ``validatedValue(forKey:)`` throws instead.
    public func value(forKey key: String) -> Any? {
        do { return try validatedValue(forKey: key) } catch { fatalError("\(error)") }
    }

    /// The throwing form of ``value(forKey:)``: another key throws a `PredicateEvaluationError`.
    public func validatedValue(forKey key: String) throws -> Any? {
        switch key {
        case "entity": return entity
        case "isTemporaryID", "temporaryID": return NSNumber(value: isTemporaryID)
        case "persistentStore": return persistentStore
        case "uriRepresentation", "URIRepresentation": return uriRepresentation()
        case "self": return self
        default: throw PredicateEvaluationError(.notKeyValueCodingCompliant(type: "NSManagedObjectID", key: key))
        }
    }
}

import Foundation
import OpenCoreDataPredicates

/// Key-value coding of an entity's `name` and `managedObjectClassName`, as Objective-C's reaches them on
/// Apple platforms: `entity.name == 'Book'` evaluated in memory (filtering objects or change
/// notifications), sorts by `entity.name`, and `value(forKey:)`.
extension NSEntityDescription: KeyValueCoding {
    /// Mirrors `value(forKey:)`: `name`, `managedObjectClassName` and `self`. Another key traps, as Core
    /// Data raises; ``validatedValue(forKey:)`` throws instead.
    public func value(forKey key: String) -> Any? {
        do { return try validatedValue(forKey: key) } catch { fatalError("\(error)") }
    }

    /// The throwing form of ``value(forKey:)``: another key throws a `PredicateEvaluationError`.
    public func validatedValue(forKey key: String) throws -> Any? {
        switch key {
        case "name": return name
        case "managedObjectClassName": return managedObjectClassName
        case "self": return self
        default: throw PredicateEvaluationError(.notKeyValueCodingCompliant(type: "NSEntityDescription", key: key))
        }
    }
}

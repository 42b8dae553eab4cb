import Foundation

/// The stand-in for `@objc` on a property of an `NSManagedObject` subclass that an app reads by its name:
/// a computed `firstInitial` used as a controller's `sectionNameKeyPath`, a key of an in-memory sort or
/// of a predicate evaluated in memory, `value(forKey:)` / `setValue(_:forKey:)`. Linux Swift has no
/// Objective-C runtime, so `@objc` is rejected and a plain property cannot be found by name; mark it
/// `@KeyValue` instead (a one-word port change, like `@NSManaged` → `@Managed`):
///
///     final class Person: NSManagedObject {
///         @Managed var name: String?
///         @KeyValue var firstInitial: String { String((name ?? "").prefix(1)) }
///     }
///
/// The property keeps its code. `value(forKey: "firstInitial")`, `value(forKeyPath:)`, in-memory sort
/// descriptors and predicates, and a controller's sections then read it; `setValue(_:forKey:)` writes a
/// settable one (a stored `var`, or one with a `set`). Like any key that is not in the model, it cannot be
/// used in a predicate or sort descriptor that the SQLite store evaluates (Core Data refuses those too);
/// a sectioned controller computes such sections in memory (docs/ModelClasses.md, "Properties read by
/// name").
@attached(peer, names: prefixed(__keyValueRecord_))
public macro KeyValue() = #externalMacro(module: "OpenCoreDataMacros", type: "KeyValueMacro")

/// One `@KeyValue` property: how to read it (and write it) on an instance of its class.
struct KeyValueProperty {
    let owner: NSManagedObject.Type
    let name: String
    /// The number that tells the property apart among every `@KeyValue` property of the process.
    var index = 0
    let get: (NSManagedObject) -> Any?
    /// `nil` for a read-only property. Throws when the value is not of the property's type.
    let set: ((NSManagedObject, Any?) throws -> Void)?
}

extension _ManagedMacroSupport {
    /// What a `@KeyValue` property's section record calls: reports its getter to `collector`.
    public static func keyValueRecord<O: NSManagedObject, T>(_ collector: UnsafeMutableRawPointer, _ owner: O.Type, _ name: String,
                                                          get: @escaping (O) -> T) {
        ManagedRecordCollector.add(collector, KeyValueProperty(owner: owner, name: name, get: read(get), set: nil))
    }

    /// What a settable `@KeyValue` property's section record calls: reports its getter and setter.
    public static func keyValueRecord<O: NSManagedObject, T>(_ collector: UnsafeMutableRawPointer, _ owner: O.Type, _ name: String,
                                                          get: @escaping (O) -> T, set: @escaping (O, T) -> Void) {
        let write: (NSManagedObject, Any?) throws -> Void = { object, value in
            guard let typed = KeyValueCast.value(value, as: T.self) else {
                throw CoreDataError(NSManagedObjectValidationError, "setValue(_:forKey:): \(value.map { "\(type(of: $0))" } ?? "nil") is not a \(T.self), the type of \(name) of class \(NSStringFromClass(O.self))",
                                    userInfo: [NSValidationKeyErrorKey: name])
            }
            set(object as! O, typed)
        }
        ManagedRecordCollector.add(collector, KeyValueProperty(owner: owner, name: name, get: read(get), set: write))
    }

    private static func read<O: NSManagedObject, T>(_ get: @escaping (O) -> T) -> (NSManagedObject) -> Any? {
        { object in flattenOptional(get(object as! O) as Any) }
    }
}

/// Converts what `setValue(_:forKey:)` is given to a property's type: the value itself, `nil` / `NSNull`
/// for an optional, or a number of another width as key-value coding converts `NSNumber`s.
enum KeyValueCast {
    static func value<T>(_ value: Any?, as type: T.Type) -> T? {
        if let value, !(value is NSNull) {
            if let typed = value as? T { return typed }
            if let number = value as? NSNumber { return number as? T }
            return nil
        }
        return (Optional<Any>.none as Any) as? T
    }
}

import Foundation
import Synchronization

/// What predicates and sort descriptors read values through: Foundation's key-value coding, which Linux
/// lacks. Dictionaries (`[String: Any]`, `NSDictionary`) conform; `NSManagedObject` conforms in
/// `OpenCoreData`; conform your own types to evaluate predicates on them.
public protocol KeyValueCoding {
    /// Mirrors `value(forKey:)`: the value for `key`, or `nil`.
    func value(forKey key: String) -> Any?

    /// Like ``KeyValueCoding/value(forKey:)``, but throws for a key the receiver does not have (Darwin raises
    /// "not key value coding-compliant"). The default calls ``KeyValueCoding/value(forKey:)``.
    func validatedValue(forKey key: String) throws -> Any?
}

/// A receiver that hands out values already in the predicates' own representation (managed objects keep
/// theirs that way), so evaluation skips boxing into `Any` and converting back.
package protocol PredicateValueReading: AnyObject {
    /// Identifies where the receiver keeps its keys: receivers with the same layout keep a key in the same
    /// slot (a managed object's entity layout), so a compiled predicate looks a key up once per layout.
    /// A positive number below 2⁴⁸, never reused for another layout in the process.
    var predicateLayout: Int { get }

    /// The slot of a plain key; throws for a key the receiver does not have.
    func predicateSlot(forKey key: String) throws -> Int

    /// The value in a slot that ``predicateSlot(forKey:)`` gave for this layout.
    func predicateValue(atSlot slot: Int) -> Value

    /// The integer in a slot, or `nil` when it holds anything else: the common case, read without
    /// copying a ``Value``.
    func predicateInteger(atSlot slot: Int) -> Int64?
}

/// How an evaluated object's plain keys are read, decided once per evaluation.
package enum EvaluatedObject {
    case dictionary([String: Any])
    case reader(PredicateValueReading)
    /// Anything else: read through ``KeyPathReader``.
    case other

    package init(_ object: Any?) {
        guard let object else { self = .other; return }
        let type = ObjectIdentifier(Swift.type(of: object))
        // An instance of the reader class seen last: one cast to that exact class, no conformance lookup.
        if let reader = ReaderClass.reader(object, ofType: type) {
            self = .reader(reader)
            return
        }
        // By exact type first: asking a dictionary for a class-bound protocol bridges it to NSDictionary,
        // and asking an object whether it is a dictionary is slow too.
        if type == ObjectIdentifier([String: Any].self) {
            self = .dictionary(object as! [String: Any])
        } else if let reader = object as? PredicateValueReading {
            ReaderClass.remember(reader)
            self = .reader(reader)
        } else {
            self = .other
        }
    }
}

/// What lets ``EvaluatedObject`` skip the runtime's conformance lookup (Swift's protocol conformance
/// cache, a hash table probe per `as? PredicateValueReading`) for an object passed as `Any`: the class
/// of the last reader found, with a cast to that class, which the runtime answers by comparing types.
/// One object per reader class (managed object classes), made on the first instance and kept for the
/// process; the last one used is read with one atomic load.
package class ReaderClass: @unchecked Sendable {
    /// The class, as `type(of:)` gives it for its instances.
    let type: ObjectIdentifier

    fileprivate init(type: ObjectIdentifier) { self.type = type }

    /// `object` as a reader; `object` is an instance of exactly ``type``.
    fileprivate func reader(_ object: Any) -> PredicateValueReading? { nil }

    /// The class used last (kept alive by `known`).
    private static let last = Atomic<Unmanaged<ReaderClass>?>(nil)
    /// Every class made, by type.
    private static let known = Mutex<[ObjectIdentifier: ReaderClass]>([:])

    /// `object` as a reader if `type`, its exact type, is the reader class used last; else `nil`.
    @inline(__always)
    static func reader(_ object: Any, ofType type: ObjectIdentifier) -> PredicateValueReading? {
        guard let last = last.load(ordering: .acquiring) else { return nil }
        return last._withUnsafeGuaranteedRef { $0.type == type ? $0.reader(object) : nil }
    }

    /// Makes `reader`'s class the one used last.
    static func remember(_ reader: PredicateValueReading) {
        let type = ObjectIdentifier(Swift.type(of: reader))
        let made = known.withLock { classes in
            if let found = classes[type] { return found }
            func make<R: PredicateValueReading>(_ reader: R) -> ReaderClass { TypedReaderClass<R>(type: type) }
            let new = make(reader)
            classes[type] = new
            return new
        }
        last.store(Unmanaged.passUnretained(made), ordering: .releasing)
    }
}

private final class TypedReaderClass<R: PredicateValueReading>: ReaderClass, @unchecked Sendable {
    /// The caller has checked that `object`'s dynamic type is exactly `R`, a class: an `Any` holding a
    /// class instance (directly or inside a class-bound existential) keeps the reference in its first
    /// word, so it is read from there instead of through the runtime's dynamic cast.
    override func reader(_ object: Any) -> PredicateValueReading? {
        withUnsafePointer(to: object) { UnsafeRawPointer($0).load(as: R.self) }
    }
}

extension PredicateValueReading {
    /// The value for a plain key; throws for a key the receiver does not have.
    func predicateValue(forKey key: String) throws -> Value {
        predicateValue(atSlot: try predicateSlot(forKey: key))
    }
}

extension KeyValueCoding {
    public func validatedValue(forKey key: String) throws -> Any? { value(forKey: key) }

    /// Mirrors `value(forKeyPath:)`: follows a dotted key path through dictionaries, your own types,
    /// arrays and sets (a key maps over the elements), Foundation values (`name.length`) and collection
    /// operators (`items.@sum.price`, `tags.@count`, `@distinctUnionOfObjects.name`). `nil` where the
    /// path meets a key the value does not have; ``validatedValue(forKeyPath:)`` throws instead.
    public func value(forKeyPath keyPath: String) -> Any? {
        try? validatedValue(forKeyPath: keyPath)
    }

    /// The throwing form of ``value(forKeyPath:)``: an unknown key throws a
    /// ``PredicateEvaluationError`` naming the key. Not in Foundation, which raises.
    public func validatedValue(forKeyPath keyPath: String) throws -> Any? {
        try KeyPathReader.value(of: self, keyPath: keyPath)
    }
}

extension Dictionary: KeyValueCoding where Key == String {
    /// A missing key reads as `nil`, as `NSDictionary.value(forKey:)` does.
    public func value(forKey key: String) -> Any? {
        guard let v = self[key] else { return nil }
        return flattenOptional(v as Any)
    }
}

extension NSDictionary: KeyValueCoding {}

/// Follows key paths through `KeyValueCoding` values, collections and collection operators
/// (`@count`, `@sum`, `@avg`, `@min`, `@max`, `@distinctUnionOfObjects`, `@unionOfObjects`), and the
/// keys Foundation's key-value coding answers for strings (`length` in UTF-16 units, as `NSString`'s,
/// `uppercaseString`, `lowercaseString`) and for any value (`description`). Any other key on a value
/// that is not ``KeyValueCoding`` is an error naming the key and the type.
/// A key applied to an array or set gives the array or set of each element's value, as Darwin's KVC does;
/// a key that reads nil ends the walk with nil, whatever follows (`@count` included), as on Darwin.
package enum KeyPathReader {
    /// Whether a key path is one plain key (no `.` and no collection operator); checked on bytes.
    @inline(__always)
    package static func isPlainKey(_ keyPath: String) -> Bool {
        !keyPath.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "@") })
    }

    package static func value(of object: Any?, keyPath: String) throws -> Any? {
        // A plain key (the common case) is one lookup.
        if isPlainKey(keyPath) {
            return try value(of: object, key: keyPath)
        }
        return try value(of: object, components: keyPath.split(separator: ".", omittingEmptySubsequences: false)[...])
    }

    private static func value(of object: Any?, components: ArraySlice<Substring>) throws -> Any? {
        guard let first = components.first else { return object }
        let rest = components.dropFirst()
        if first.hasPrefix("@") {
            let elements = collectionElements(object) ?? []
            switch first {
            case "@count":
                // Of a dictionary, its number of entries (`NSDictionary`'s `count`, reached through `@`).
                let count = dictionaryCount(object) ?? elements.count
                return rest.isEmpty ? count : try value(of: count, components: rest)
            case "@sum", "@avg", "@min", "@max":
                let values = try elements.map { try value(of: $0, components: rest) }.map { Value(any: $0) }
                let name = ["@sum": "sum:", "@avg": "average:", "@min": "min:", "@max": "max:"][String(first)]!
                return try FunctionEvaluation.aggregate(name, values.filter { !$0.isNull }).anyValue
            case "@distinctUnionOfObjects", "@unionOfObjects":
                let values = try elements.map { try value(of: $0, components: rest) }
                guard first == "@distinctUnionOfObjects" else { return values }
                var seen = Set<Value>()
                return values.filter { seen.insert(Value(any: $0)).inserted }
            default:
                throw PredicateEvaluationError(.unsupported("the collection operator \(first)"))
            }
        }
        if let elements = collectionElements(object) {
            let mapped = try elements.map { try value(of: $0, components: components) }
            guard isSet(object) else { return mapped }
            return Set(mapped.map { hashable($0 ?? NSNull()) })
        }
        let next = try value(of: object, key: String(first))
        // A nil met on the way ends the walk, as a message to nil does on Darwin: `owner.pets.@count` is
        // nil for an object without an owner (not 0), and so is what any later key would read.
        if !rest.isEmpty, next.flatMap(flattenOptional) == nil || next is NSNull { return nil }
        return try value(of: next, components: rest)
    }

    private static func dictionaryCount(_ object: Any?) -> Int? {
        guard let object, let unwrapped = flattenOptional(object) else { return nil }
        if let d = unwrapped as? [String: Any] { return d.count }
        if let d = unwrapped as? NSDictionary { return d.count }
        if let d = unwrapped as? [AnyHashable: Any] { return d.count }
        return nil
    }

    private static func isSet(_ object: Any?) -> Bool {
        guard let object, let unwrapped = flattenOptional(object) else { return false }
        return unwrapped is Set<AnyHashable> || unwrapped is NSSet
    }

    private static func hashable(_ any: Any) -> AnyHashable {
        (any as? AnyHashable) ?? AnyHashable(Value(any: any))
    }

    /// One key of one object.
    package static func value(of object: Any?, key: String) throws -> Any? {
        guard let object, let unwrapped = flattenOptional(object) else { return nil }
        if let kvc = unwrapped as? KeyValueCoding { return try kvc.validatedValue(forKey: key) }
        if let elements = collectionElements(unwrapped) {
            return try elements.map { try value(of: $0, key: key) }
        }
        if key == "self" { return unwrapped }
        // A dictionary read out of an NSDictionary comes back keyed by AnyHashable: a missing key is nil.
        if let d = unwrapped as? [AnyHashable: Any] {
            return d[AnyHashable(key)].flatMap { flattenOptional($0) }
        }
        // What Foundation's key-value coding answers for its value classes.
        if let string = unwrapped as? String ?? (unwrapped as? NSString).map({ $0 as String }) {
            switch key {
            case "length": return string.utf16.count  // NSString's length counts UTF-16 units
            case "uppercaseString": return string.uppercased()
            case "lowercaseString": return string.lowercased()
            case "description": return string
            default: break
            }
        }
        if key == "description" { return String(describing: unwrapped) }
        throw PredicateEvaluationError(.notKeyValueCodingCompliant(type: String(describing: type(of: unwrapped)), key: key))
    }

    /// The elements of an array, set or ordered set, else `nil`.
    package static func collectionElements(_ object: Any?) -> [Any]? {
        guard let object, let unwrapped = flattenOptional(object) else { return nil }
        switch unwrapped {
        case let a as [Any]: return a
        case let s as Set<AnyHashable>: return s.map { $0.base }
        case let a as NSArray: return a.map { $0 }
        case let s as NSSet: return s.allObjects
        case let o as NSOrderedSet: return o.array
        case let v as Value: return v.collectionElements
        default: return nil
        }
    }
}

import Foundation

/// A value a predicate works with: a constant of a format string, a bound variable, or what a key path
/// produced. Every pass (evaluation, printing, SQL translation) works on this one representation, so that
/// numbers, strings and `nil` mean the same thing everywhere.
///
/// Numbers keep their kind (`int`, `double`, `decimal`, `bool`) so that printing round-trips, but compare
/// across kinds as `NSNumber` does (`1 == 1.0 == TRUE`).
package enum Value: Hashable, @unchecked Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    case array([Value])
    case set(Set<Value>)
    /// Anything else (a managed object, an object ID, a value of the caller's own type), compared with `==`.
    case object(AnyHashable)
    /// A collection its owner keeps in a form of its own (a managed object's to-many relationship),
    /// which reads as the `.set` or `.array` that ``CollectionValue/expanded`` makes.
    case collection(OwnedCollection)
}

/// What ``Value/collection(_:)`` holds: a collection kept by reference in its owner's own form.
package protocol CollectionValue: AnyObject {
    /// The collection as a `.set`, or an `.array` when it is ordered.
    var expanded: Value { get }
    func isEqual(to other: any CollectionValue) -> Bool
    func hash(into hasher: inout Hasher)
}

/// A ``CollectionValue`` as a hashable value (its own equality and hash).
package struct OwnedCollection: Hashable, @unchecked Sendable {
    package let value: any CollectionValue
    package init(_ value: any CollectionValue) { self.value = value }
    package static func == (a: OwnedCollection, b: OwnedCollection) -> Bool { a.value === b.value || a.value.isEqual(to: b.value) }
    package func hash(into hasher: inout Hasher) { value.hash(into: &hasher) }
}

extension Value {
    /// Converts what key-value coding or a format argument produced.
    package init(any: Any?) {
        guard let any else { self = .null; return }
        // The common native types by exact dynamic type, before the chain of casts below.
        switch ObjectIdentifier(type(of: any)) {
        case ObjectIdentifier(Int.self): self = .int(Int64(any as! Int)); return
        case ObjectIdentifier(String.self): self = .string(any as! String); return
        case ObjectIdentifier(Double.self): self = .double(any as! Double); return
        case ObjectIdentifier(Int64.self): self = .int(any as! Int64); return
        case ObjectIdentifier(Int32.self): self = .int(Int64(any as! Int32)); return
        case ObjectIdentifier(Bool.self): self = .bool(any as! Bool); return
        case ObjectIdentifier(Value.self): self = any as! Value; return
        default: break
        }
        guard let unwrapped = flattenOptional(any) else { self = .null; return }
        switch unwrapped {
        case let v as Value: self = v
        // Before the numeric casts: on Linux an NSDecimalNumber casts `as Double` too, inexactly.
        case let v as NSDecimalNumber: self = .decimal(v.decimalValue)
        // An NSNumber object before the Swift casts: on Linux any NSNumber of 0 or 1 casts `as Bool`
        // (NSNumber(value: -0.0) would become false, losing its type and its sign).
        case let v as NSNumber where type(of: unwrapped) is NSNumber.Type: self = Value(number: v)
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .int(Int64(v))
        case let v as Int64: self = .int(v)
        case let v as Int32: self = .int(Int64(v))
        case let v as Int16: self = .int(Int64(v))
        case let v as Int8: self = .int(Int64(v))
        case let v as UInt: self = v <= UInt(Int64.max) ? .int(Int64(v)) : .double(Double(v))
        case let v as UInt64: self = v <= UInt64(Int64.max) ? .int(Int64(v)) : .double(Double(v))
        case let v as UInt32: self = .int(Int64(v))
        case let v as UInt16: self = .int(Int64(v))
        case let v as UInt8: self = .int(Int64(v))
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        case let v as NSNumber: self = Value(number: v)
        case let v as Date: self = .date(v)
        case let v as Data: self = .data(v)
        case let v as UUID: self = .uuid(v)
        case let v as URL: self = .url(v)
        case is NSNull: self = .null
        case let v as NSString: self = .string(v as String)
        case let v as [Any?]: self = .array(v.map { Value(any: $0) })
        case let v as [Any]: self = .array(v.map { Value(any: $0) })
        case let v as NSArray: self = .array(v.map { Value(any: $0) })
        case let v as NSOrderedSet: self = .array(v.array.map { Value(any: $0) })
        case let v as Set<AnyHashable>: self = .set(Set(v.map { Value(any: $0.base) }))
        case let v as NSSet: self = .set(Set(v.allObjects.map { Value(any: $0) }))
        case let v as any ValueConvertibleCollection: self = v.predicateValue
        case let v as [String: Any]: self = .object(AnyHashable(NSDictionary(dictionary: v)))
        case let v as PredicateIdentity: self = v.predicateIdentity
        case let v as AnyHashable: self = .object(v)
        case let v as any Hashable: self = .object(AnyHashable(v))
        case let v as AnyObject: self = .object(AnyHashable(ObjectIdentifierBox(v)))
        default: self = .object(AnyHashable(String(describing: unwrapped)))
        }
    }

    package init(number: NSNumber) {
        // NSNumber(value: true) is a singleton of a private boolean class, on Linux as on Darwin.
        if number === kTrue { self = .bool(true); return }
        if number === kFalse { self = .bool(false); return }
        switch String(cString: number.objCType) {
        case "f", "d": self = .double(number.doubleValue)
        case "Q", "L":
            let u = number.uint64Value
            self = u <= UInt64(Int64.max) ? .int(Int64(u)) : .double(Double(u))
        default: self = .int(number.int64Value)
        }
    }

    /// The value as Swift code expects it back from `NSExpression.constantValue` or `expressionValue`.
    package var anyValue: Any? {
        switch self {
        case .null: return nil
        case .bool(let v): return NSNumber(value: v)
        case .int(let v): return NSNumber(value: v)
        case .double(let v): return NSNumber(value: v)
        case .decimal(let v): return NSDecimalNumber(decimal: v)
        case .string(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        case .url(let v): return v
        case .array(let v): return v.map { $0.anyValue as Any }
        case .set(let v): return Set(v.map { AnyHashable($0.hashableAny) })
        case .object(let v):
            if let box = v.base as? ObjectIdentifierBox { return box.object }
            if let box = v.base as? any OpaqueValueBox { return box.boxedValue }
            return v.base
        case .collection(let c): return c.value.expanded.anyValue
        }
    }

    private var hashableAny: AnyHashable {
        switch self {
        case .null: return AnyHashable(NSNull())
        case .object(let v): return v
        default: return (anyValue as? AnyHashable) ?? AnyHashable(self)
        }
    }

    /// True for a double or decimal NaN.
    package var isNaN: Bool {
        switch self {
        case .double(let d): return d.isNaN
        case .decimal(let d): return d.isNaN
        default: return false
        }
    }

    /// Equal and of the same sign: unlike `==`, tells −0.0 from 0.0, so that assigning −0.0 is a change.
    package func isIdentical(to other: Value) -> Bool {
        switch self {
        case .null: return other.isNull
        case .int(let x): if case .int(let y) = other { return x == y }
        case .double(let x): if case .double(let y) = other { return x.bitPattern == y.bitPattern }
        default: break
        }
        return !other.isNull && self == other
    }

    package var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The elements when the value is a collection (array or set), else `nil`.
    package var collectionElements: [Value]? {
        switch self {
        case .array(let v): return v
        case .set(let v): return Array(v)
        case .collection(let c): return c.value.expanded.collectionElements
        default: return nil
        }
    }

    /// A number as `Double`, for arithmetic and mixed comparisons.
    package var doubleValue: Double? {
        switch self {
        case .bool(let v): return v ? 1 : 0
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return v.nearestDouble
        default: return nil
        }
    }

    package var isNumber: Bool {
        switch self {
        case .bool, .int, .double, .decimal: return true
        default: return false
        }
    }
}

private let kTrue = NSNumber(value: true)
private let kFalse = NSNumber(value: false)

/// A value kept whole inside `Value.object` (a transformable attribute's value): `anyValue` hands back
/// `boxedValue`, not the box.
package protocol OpaqueValueBox: Hashable { var boxedValue: Any { get } }

/// Gives objects that are not `Hashable` an identity for `Value.object`.
package struct ObjectIdentifierBox: Hashable, @unchecked Sendable {
    package let object: AnyObject
    package init(_ object: AnyObject) { self.object = object }
    package static func == (a: Self, b: Self) -> Bool { a.object === b.object }
    package func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(object)) }
}

/// Collections of the caller's own element types (for example `[Products]`), converted element by element.
/// A value that predicates compare by an identity of its own: a managed object and its object ID both
/// become the object's key, so either may stand for the other in a comparison, as in Core Data.
package protocol PredicateIdentity { var predicateIdentity: Value { get } }

package protocol ValueConvertibleCollection { var predicateValue: Value { get } }
extension Array: ValueConvertibleCollection {
    package var predicateValue: Value { .array(map { Value(any: $0) }) }
}
extension Set: ValueConvertibleCollection {
    package var predicateValue: Value { .set(Set<Value>(map { Value(any: $0) })) }
}

private protocol OptionalProtocol { var wrapped: Any? { get } }
extension Optional: OptionalProtocol {
    fileprivate var wrapped: Any? { self.map { $0 as Any } }
}

/// `Any` holding `Optional<Optional<T>>.none` is not `nil` to Swift; this digs the value out.
package func flattenOptional(_ any: Any) -> Any? {
    var current: Any = any
    while let opt = current as? OptionalProtocol {
        guard let next = opt.wrapped else { return nil }
        current = next
    }
    return current
}

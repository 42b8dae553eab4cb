import Foundation
import Synchronization

/// The common shape of a predicate — plain keys compared with constants (`price < 500`, `name == "Сыр"`),
/// joined by `AND`, `OR` and `NOT`, without comparison options — made once, when the `NSPredicate` is
/// made, into a tree of small objects that ``NSPredicate/evaluate(with:)`` runs without the general
/// ``Evaluator``: a managed object's slot for each key is remembered per entity, so a key costs no
/// string hashing after the first object.
///
/// It answers only what it can answer exactly as the ``Evaluator`` would; `nil` hands the object over to
/// the ``Evaluator`` (an object that is neither a ``PredicateValueReading`` nor a `[String: Any]`, an
/// unknown key, which must throw the evaluator's error).
package class CompiledPredicate: @unchecked Sendable {
    /// Compiles `node`, or `nil` when it is not of the common shape.
    package static func compile(_ node: PredicateNode) -> CompiledPredicate? {
        switch node {
        case .constant(let b):
            return CompiledConstant(b)
        case .block:
            return nil
        case .and(let parts), .or(let parts):
            var compiled: [CompiledPredicate] = []
            for part in parts {
                guard let c = compile(part) else { return nil }
                compiled.append(c)
            }
            if case .and = node { return CompiledJunction(compiled, decisive: false) }
            return CompiledJunction(compiled, decisive: true)
        case .not(let part):
            return compile(part).map(CompiledNot.init)
        case .comparison(let c):
            guard c.modifier == .direct, c.options.isEmpty, Self.ordered.contains(c.op) else { return nil }
            switch (c.left, c.right) {
            case (.keyPath(let key), .constant(let v)) where KeyPathReader.isPlainKey(key) && v.collectionElements == nil:
                return CompiledComparison(key: key, op: c.op, constant: v, keyOnLeft: true)
            case (.constant(let v), .keyPath(let key)) where KeyPathReader.isPlainKey(key) && v.collectionElements == nil:
                return CompiledComparison(key: key, op: c.op, constant: v, keyOnLeft: false)
            default:
                return nil
            }
        }
    }

    private static let ordered: [NSComparisonPredicate.Operator] =
        [.lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo, .notEqualTo]

    /// The predicate's value for `object`, or `nil` when the ``Evaluator`` must decide.
    package final func evaluate(_ object: Any?) -> Bool? {
        switch EvaluatedObject(object) {
        case .dictionary(let d): return evaluate(dictionary: d)
        case .reader(let r): return evaluate(reader: r)
        case .other: return nil
        }
    }

    /// The same for an object known statically to be a ``PredicateValueReading``; overridden by each kind
    /// of node (as is the dictionary form: one method per kind of object keeps the object unwrapped).
    package func evaluate(reader: PredicateValueReading) -> Bool? { nil }

    /// The same for a dictionary known statically to be one.
    package func evaluate(dictionary: [String: Any]) -> Bool? { nil }
}

private final class CompiledConstant: CompiledPredicate, @unchecked Sendable {
    let value: Bool
    init(_ value: Bool) { self.value = value }
    override func evaluate(reader: PredicateValueReading) -> Bool? { value }
    override func evaluate(dictionary: [String: Any]) -> Bool? { value }
}

/// `AND` (stops at the first false part) or `OR` (stops at the first true part).
private final class CompiledJunction: CompiledPredicate, @unchecked Sendable {
    let parts: [CompiledPredicate]
    /// The part value that decides the whole: false for `AND`, true for `OR`.
    let decisive: Bool
    init(_ parts: [CompiledPredicate], decisive: Bool) { self.parts = parts; self.decisive = decisive }

    private func combine(_ evaluate: (CompiledPredicate) -> Bool?) -> Bool? {
        for part in parts {
            guard let b = evaluate(part) else { return nil }
            if b == decisive { return decisive }
        }
        return !decisive
    }

    override func evaluate(reader: PredicateValueReading) -> Bool? { combine { $0.evaluate(reader: reader) } }
    override func evaluate(dictionary: [String: Any]) -> Bool? { combine { $0.evaluate(dictionary: dictionary) } }
}

private final class CompiledNot: CompiledPredicate, @unchecked Sendable {
    let part: CompiledPredicate
    init(_ part: CompiledPredicate) { self.part = part }
    override func evaluate(reader: PredicateValueReading) -> Bool? { part.evaluate(reader: reader).map(!) }
    override func evaluate(dictionary: [String: Any]) -> Bool? { part.evaluate(dictionary: dictionary).map(!) }
}

/// `key op constant` (or `constant op key`).
private final class CompiledComparison: CompiledPredicate, @unchecked Sendable {
    let key: String
    let op: NSComparisonPredicate.Operator
    let constant: Value
    let keyOnLeft: Bool
    /// The constant when it is an integer, kept unwrapped for the common comparison.
    let integer: Int64?
    /// The slot of `key` in the last layout seen, packed as `slot << 48 | layout number` (0: none yet).
    /// Shared by every thread evaluating the predicate; a stale or racing entry only costs a lookup.
    private let slotCache = Atomic<UInt>(0)

    init(key: String, op: NSComparisonPredicate.Operator, constant: Value, keyOnLeft: Bool) {
        self.key = key
        self.op = op
        self.constant = constant
        self.keyOnLeft = keyOnLeft
        if case .int(let c) = constant { integer = c } else { integer = nil }
    }

    override func evaluate(reader: PredicateValueReading) -> Bool? {
        guard let slot = slot(reader) else { return nil }
        if let c = integer, let x = reader.predicateInteger(atSlot: slot) {
            return keyOnLeft ? Self.order(x, op, c) : Self.order(c, op, x)
        }
        return compare(reader.predicateValue(atSlot: slot))
    }

    override func evaluate(dictionary: [String: Any]) -> Bool? {
        guard let any = lookUp(dictionary) else { return compare(.null) }
        if let c = integer, let x = Self.exactInteger(any) {
            return keyOnLeft ? Self.order(x, op, c) : Self.order(c, op, x)
        }
        return compare(Value(any: any))
    }

    /// `dictionary[key]`. In a small dictionary the keys are compared instead: cheaper than hashing `key`
    /// (for equal short keys `==` compares two words), and a hash cannot be kept from one dictionary to
    /// the next (each seeds its hashes differently). `==` is canonical equivalence, as the dictionary's
    /// own lookup is, so the same key is found.
    @inline(__always)
    private func lookUp(_ dictionary: [String: Any]) -> Any? {
        guard dictionary.count <= 8 else { return dictionary[key] }
        let keys = dictionary.keys
        var i = keys.startIndex
        while i != keys.endIndex {
            let k = keys[i]
            if k == key { return dictionary.values[i] }
            keys.formIndex(after: &i)
        }
        return nil
    }

    /// The integer in `any` when its type is exactly `Int`, `Int64` or `Int32` (the types ``Value``
    /// makes an `.int` of directly), else `nil` (the caller converts it the general way).
    @inline(__always)
    private static func exactInteger(_ any: Any) -> Int64? {
        // The type is checked exactly, and an `Any` keeps a value of these types in its first word: read
        // there, without the runtime's dynamic cast.
        func load<T>(_: T.Type) -> T { withUnsafePointer(to: any) { UnsafeRawPointer($0).load(as: T.self) } }
        switch ObjectIdentifier(type(of: any)) {
        case ObjectIdentifier(Int.self): return Int64(load(Int.self))
        case ObjectIdentifier(Int64.self): return load(Int64.self)
        case ObjectIdentifier(Int32.self): return Int64(load(Int32.self))
        default: return nil
        }
    }

    private func compare(_ value: Value) -> Bool {
        if case .int(let x) = value, let c = integer {
            return keyOnLeft ? Self.order(x, op, c) : Self.order(c, op, x)
        }
        // The ordered operators never throw.
        return (try? keyOnLeft ? ValueComparison.evaluate(value, op, constant, [])
                               : ValueComparison.evaluate(constant, op, value, [])) ?? false
    }

    /// The slot of `key` in the reader, or `nil` when it has no such key.
    private func slot(_ reader: PredicateValueReading) -> Int? {
        let layout = UInt(bitPattern: reader.predicateLayout)  // layout numbers start at 1
        let cached = slotCache.load(ordering: .relaxed)
        if cached != 0, cached & Self.layoutMask == layout { return Int(cached >> 48) }
        guard let slot = try? reader.predicateSlot(forKey: key) else { return nil }
        if layout & ~Self.layoutMask == 0, slot < 1 << 15 {
            slotCache.store(UInt(slot) << 48 | layout, ordering: .relaxed)
        }
        return slot
    }

    private static let layoutMask: UInt = (1 << 48) - 1

    private static func order(_ x: Int64, _ op: NSComparisonPredicate.Operator, _ y: Int64) -> Bool {
        switch op {
        case .lessThan: return x < y
        case .lessThanOrEqualTo: return x <= y
        case .greaterThan: return x > y
        case .greaterThanOrEqualTo: return x >= y
        case .equalTo: return x == y
        default: return x != y
        }
    }
}

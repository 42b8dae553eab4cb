import Foundation

/// Mirrors Foundation's `NSSortDescriptor`: a key path, a direction and a comparison selector.
///
/// Supported selectors are those Core Data's SQLite store accepts: `compare:` (the default),
/// `caseInsensitiveCompare:`, `localizedCompare:`, `localizedCaseInsensitiveCompare:` and
/// `localizedStandardCompare:` (see `StringCollation` for what the localized ones mean on Linux).
/// Values compare as predicates compare them; `nil` sorts before every value, as in SQLite and Core Data.
public class NSSortDescriptor: NSObject, @unchecked Sendable {
    /// Mirrors `key`.
    public let key: String?
    /// Mirrors `ascending`.
    public let ascending: Bool
    /// Mirrors `selector`; `nil` means `compare:`.
    public let selector: Selector?

    /// Mirrors `init(key:ascending:)`.
    public convenience init(key: String?, ascending: Bool) {
        self.init(key: key, ascending: ascending, selector: nil)
    }

    /// Mirrors `keyPath`: the Swift key path the descriptor was made from (`init(keyPath:ascending:)`),
    /// `nil` for one made from a string key (or decoded from an archive), as in Foundation.
    public private(set) var keyPath: AnyKeyPath?

    /// Mirrors `init(key:ascending:selector:)`.
    public init(key: String?, ascending: Bool, selector: Selector?) {
        self.key = key
        self.ascending = ascending
        self.selector = selector
        super.init()
    }

    /// A descriptor by `key`, remembering the Swift key path it was made from (OpenCoreData's
    /// `init(keyPath:ascending:)`, in ModernSwift/, finds the key).
    package convenience init(key: String?, ascending: Bool, selector: Selector?, keyPath: AnyKeyPath?) {
        self.init(key: key, ascending: ascending, selector: selector)
        self.keyPath = keyPath
    }

    /// Set when decoded from an archive: closed until ``allowEvaluation()``, as on Darwin.
    package var archiveGate: EvaluationGate?

    /// Mirrors `init(coder:)` (`NSSecureCoding`): Apple's keys `NSKey`, `NSAscending`, `NSSelector`. As on
    /// Darwin, a decoded sort descriptor refuses to compare until ``allowEvaluation()``.
    public required init?(coder: NSCoder) {
        guard let (key, ascending, selector) = PredicateCoding.decodeSortDescriptor(coder) else { return nil }
        self.key = key
        self.ascending = ascending
        self.selector = selector
        self.archiveGate = EvaluationGate()
        super.init()
    }

    /// Mirrors `encode(with:)` (`NSCoding`): `NSKey`, `NSAscending`, `NSSelector`, `NSReverseNullOrder`.
    public func encode(with coder: NSCoder) {
        PredicateCoding.encode(self, with: coder)
    }

    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`): `true`.
    public class var supportsSecureCoding: Bool { true }

    /// Mirrors `allowEvaluation()`: lets a decoded sort descriptor compare objects.
    public func allowEvaluation() { archiveGate?.open() }

    /// The string order the selector names, or `nil` for a selector Core Data's store would reject.
    package var collation: StringCollation? {
        StringCollation(rawValue: selector?.name ?? "compare:")
    }

    /// Mirrors `reversedSortDescriptor`.
    public var reversedSortDescriptor: Any {
        NSSortDescriptor(key: key, ascending: !ascending, selector: selector, keyPath: keyPath)
    }

    /// Mirrors `compare(_:to:)`: the order of two objects by this descriptor's key, selector and direction.
    /// An unknown selector compares as `compare:`. A key the objects do not have traps, as Darwin raises.
    public func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        do {
            return try compare(validating: object1, to: object2)
        } catch {
            fatalError("\(error)")
        }
    }

    /// The throwing form of ``compare(_:to:)``. Not in Core Data.
    public func compare(validating object1: Any, to object2: Any) throws -> ComparisonResult {
        let a = try sortValue(object1), b = try sortValue(object2)
        let r = Self.compare(a, b, collation: collation ?? .compare)
        return ascending ? r : r.reversed
    }

    package func sortValue(_ object: Any?) throws -> Value {
        if let archiveGate, !archiveGate.isOpen { throw PredicateEvaluationError(.evaluationNotAllowed) }
        guard let key, !key.isEmpty, key != "self" else { return Value(any: object) }
        return Value(any: try KeyPathReader.value(of: object, keyPath: key))
    }

    /// Ascending order of two values: `nil` first, then numbers, strings by collation, dates, …
    /// Values of different kinds order by kind, so that any array sorts deterministically.
    package static func compare(_ a: Value, _ b: Value, collation: StringCollation) -> ComparisonResult {
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let x), .string(let y)): return collation.compare(x, y)
        default:
            if let r = ValueComparison.compare(a, b) { return r }
            let ka = kindRank(a), kb = kindRank(b)
            return ka == kb ? .orderedSame : ka < kb ? .orderedAscending : .orderedDescending
        }
    }

    private static func kindRank(_ v: Value) -> Int {
        switch v {
        case .null: return 0
        case .bool, .int, .double, .decimal: return 1
        case .string: return 2
        case .date: return 3
        case .data: return 4
        case .uuid: return 5
        case .url: return 6
        case .array: return 7
        case .set: return 8
        case .object: return 9
        case .collection(let c): return kindRank(c.value.expanded)
        }
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSSortDescriptor else { return false }
        return other.key == key && other.ascending == ascending && (other.selector ?? "compare:") == (selector ?? "compare:")
    }

    public override var hash: Int { var h = Hasher(); h.combine(key); h.combine(ascending); return h.finalize() }

    public override var description: String {
        "(\(key ?? "self"), \(ascending ? "ascending" : "descending"), \(selector?.name ?? "compare:"))"
    }
}

extension ComparisonResult {
    package var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}

extension Array {
    /// Sorts by a list of sort descriptors, the first one deciding first (`NSArray.sortedArray(using:)`).
    /// Stable: elements equal under every descriptor keep their order.
    ///
    /// A key an element does not have traps, as Foundation's key-value coding raises
    /// `valueForUndefinedKey:`: a managed object's message names its entity and the key, as
    /// `NSManagedObject.value(forKey:)` does; so does any ``KeyValueCoding`` value whose
    /// `validatedValue(forKey:)` throws, and a value that does not conform at all. Dictionaries are the
    /// exception, as `NSDictionary` is in Foundation: a missing key reads as `nil`, which sorts first.
    /// ``sorted(validatingUsing:)`` throws instead of trapping.
    public func sorted(using sortDescriptors: [NSSortDescriptor]) -> [Element] {
        do { return try sorted(validatingUsing: sortDescriptors) } catch { fatalError("sorted(using:): \(error)") }
    }

    /// The throwing form of ``sorted(using:)``: a key an element does not have throws the error of its
    /// key lookup (for a managed object, naming its entity and the key). Not in Foundation.
    public func sorted(validatingUsing sortDescriptors: [NSSortDescriptor]) throws -> [Element] {
        // Each key read once per element, one column per descriptor; then positions are sorted, not the
        // elements: moving `Int`s is specialized code, where moving (element, keys) tuples of a generic
        // element went through runtime tuple metadata and value witnesses on every move (Benchmarks,
        // figure 7's refetch with pending changes: most of its time).
        let keys = try sortDescriptors.map { d in try map { try d.sortValue($0) } }
        let collations = sortDescriptors.map { $0.collation ?? .compare }
        let ascending = sortDescriptors.map(\.ascending)
        let order = indices.sorted { a, b in
            for i in keys.indices {
                var order = NSSortDescriptor.compare(keys[i][a], keys[i][b], collation: collations[i])
                if !ascending[i] { order = order.reversed }
                if order != .orderedSame { return order == .orderedAscending }
            }
            return a < b
        }
        return order.map { self[$0] }
    }

    /// The elements for which the predicate is true (`NSArray.filtered(using:)`).
    public func filtered(using predicate: NSPredicate) -> [Element] {
        filter { predicate.evaluate(with: $0) }
    }
}

extension Set {
    /// The elements for which the predicate is true (`NSSet.filtered(using:)`).
    public func filtered(using predicate: NSPredicate) -> Set<Element> {
        filter { predicate.evaluate(with: $0) }
    }
}

extension NSArray {
    /// Mirrors `NSArray.filtered(using:)` for this library's `NSPredicate` (Foundation's takes its own).
    public func filtered(using predicate: NSPredicate) -> [Any] {
        Array(self).filter { predicate.evaluate(with: $0) }
    }
}

extension NSMutableArray {
    /// Mirrors `NSMutableArray.filter(using:)`: keeps the elements for which the predicate is true.
    public func filter(using predicate: NSPredicate) {
        let kept = filtered(using: predicate)
        removeAllObjects()
        addObjects(from: kept)
    }
}

extension NSSet {
    /// Mirrors `NSSet.filtered(using:)` for this library's `NSPredicate`.
    public func filtered(using predicate: NSPredicate) -> Set<AnyHashable> {
        var kept = Set<AnyHashable>()
        for element in self where predicate.evaluate(with: element) {
            if let hashable = element as? AnyHashable { kept.insert(hashable) }
        }
        return kept
    }
}

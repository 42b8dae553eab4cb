import Foundation

/// The objects given as constants — `%@` arguments, `NSExpression(forConstantValue:)` inside a larger
/// expression or predicate, substitution variables — each under the value it became, so that
/// `constantValue` of any part of a predicate returns the object given, as on Darwin, while every pass
/// (evaluation, SQL, printing) works on values.
///
/// Only objects whose identity a value would lose are kept: class instances (a managed object becomes
/// its key; an `NSString` would come back a `String`) and collections holding such objects. A predicate or
/// expression shares the table of each part it was made from, without copying it, so that folding an `OR`
/// over ten thousand predicates stays linear.
package final class GivenConstants: @unchecked Sendable {
    private let entries: [(value: Value, object: Any)]
    private let parts: [GivenConstants]

    private init(entries: [(value: Value, object: Any)], parts: [GivenConstants]) {
        self.entries = entries
        self.parts = parts
    }

    /// A table of `entries` and the tables of `parts`; `nil` when there is nothing to keep.
    package static func combining(_ entries: [(value: Value, object: Any)] = [],
                                  _ parts: [GivenConstants?] = []) -> GivenConstants? {
        let parts = parts.compactMap { $0 }
        if entries.isEmpty && parts.count <= 1 { return parts.first }
        return GivenConstants(entries: entries, parts: parts)
    }

    /// The entry for `object` given as a constant, when its value does not keep what it is.
    package static func entry(for object: Any?, value: Value) -> (value: Value, object: Any)? {
        guard let object = object.flatMap(flattenOptional), value != .null else { return nil }
        return type(of: object) is AnyClass || value.holdsObjects ? (value, object) : nil
    }

    /// The object given for `value`: the first kept under an equal value (a walk of the shared tables,
    /// without recursion).
    package func object(for value: Value) -> Any? {
        var pending: [GivenConstants] = [self]
        var seen: Set<ObjectIdentifier> = []
        while let table = pending.popLast() {
            guard seen.insert(ObjectIdentifier(table)).inserted else { continue }
            if let found = table.entries.first(where: { $0.value == value }) { return found.object }
            pending.append(contentsOf: table.parts.reversed())
        }
        return nil
    }
}

extension Value {
    /// Whether this is, or holds, an `.object` (a managed object, an object ID, a value of the caller's type).
    var holdsObjects: Bool {
        switch self {
        case .object: return true
        case .array(let items): return items.contains { $0.holdsObjects }
        case .set(let items): return items.contains { $0.holdsObjects }
        default: return false
        }
    }
}

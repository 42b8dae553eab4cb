import Foundation

extension SortDescriptor where Compared: NSObject {
    /// Mirrors Foundation's `init?(_:comparing:)`: the `SortDescriptor` of an `NSSortDescriptor` whose key
    /// names `@Managed` properties of `comparedType`, through to-one relationships (`classification.order`
    /// gives `\Animal.classification?.order`), and whose comparison is `compare:` (or none given). `nil`
    /// otherwise: no key, another selector (Linux Foundation's `SortDescriptor`
    /// compares strings `.lexical`ly only, so `localizedStandardCompare:` has no equivalent here), a key
    /// that is not such a path (a property `comparedType` inherits is not found from it: see
    /// docs/ModernSwift.md), or a value that is not `Comparable`.
    public init?(_ descriptor: NSSortDescriptor, comparing comparedType: Compared.Type) {
        guard let key = descriptor.key, (descriptor.selector?.name ?? "compare:") == "compare:",
              let root = comparedType as? NSManagedObject.Type,
              let keyPath = ManagedKeyPaths.keyPath(forKey: key, from: root),
              let made = SortableKeyPaths.sortDescriptor(keyPath, descriptor.ascending ? .forward : .reverse, as: Compared.self)
        else { return nil }
        self = made
    }
}

/// Makes a `SortDescriptor` of a key path known only as `AnyKeyPath`, by its value type.
private enum SortableKeyPaths {
    static func sortDescriptor<C: NSObject>(_ keyPath: AnyKeyPath, _ order: SortOrder, as _: C.Type) -> SortDescriptor<C>? {
        if let path = keyPath as? KeyPath<C, String> { return SortDescriptor(sendable(path), comparator: .lexical, order: order) }
        if let path = keyPath as? KeyPath<C, String?> { return SortDescriptor(sendable(path), comparator: .lexical, order: order) }
        if let path = keyPath as? any ComparableKeyPath { return path.sortDescriptor(order, as: C.self) }
        if let wrapped = Swift.type(of: keyPath).valueType as? any ComparableWhenWrapped.Type {
            return wrapped.sortDescriptor(keyPath, order, as: C.self)
        }
        return nil
    }
}

/// Foundation's key-path initializers take `KeyPath & Sendable`; a key path the section records made is
/// one (no captures), though its static type no longer says so.
private func sendable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> any KeyPath<Root, Value> & Sendable {
    unsafeBitCast(keyPath, to: (any KeyPath<Root, Value> & Sendable).self)
}

private protocol ComparableKeyPath {
    func sortDescriptor<C: NSObject>(_ order: SortOrder, as _: C.Type) -> SortDescriptor<C>?
}

extension KeyPath: ComparableKeyPath where Value: Comparable {
    fileprivate func sortDescriptor<C: NSObject>(_ order: SortOrder, as _: C.Type) -> SortDescriptor<C>? {
        guard let path = self as? KeyPath<C, Value> else { return nil }
        return SortDescriptor(sendable(path), order: order)
    }
}

private protocol ComparableWhenWrapped {
    static func sortDescriptor<C: NSObject>(_ keyPath: AnyKeyPath, _ order: SortOrder, as _: C.Type) -> SortDescriptor<C>?
}

extension Optional: ComparableWhenWrapped where Wrapped: Comparable {
    fileprivate static func sortDescriptor<C: NSObject>(_ keyPath: AnyKeyPath, _ order: SortOrder, as _: C.Type) -> SortDescriptor<C>? {
        guard let path = keyPath as? KeyPath<C, Wrapped?> else { return nil }
        return SortDescriptor(sendable(path), order: order)
    }
}

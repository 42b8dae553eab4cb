import OpenCoreDataPredicates

extension NSPredicate {
    /// Mirrors `evaluate(with:)` for a managed object known as one where it is called (`Products`, not
    /// `Any`): the same answer, traps included, without the dynamic casts that an `Any` needs.
    public func evaluate(with object: NSManagedObject) -> Bool {
        evaluate(reader: object)
    }
}

extension Array where Element: NSManagedObject {
    /// Mirrors `NSArray.filtered(using:)` for managed objects: each element is evaluated through the
    /// managed-object form of `evaluate(with:)`, without dynamic casts.
    public func filtered(using predicate: NSPredicate) -> [Element] {
        filter { predicate.evaluate(with: $0 as NSManagedObject) }
    }
}

import OpenCoreDataPredicates

extension NSPredicate {
    /// Mirrors `evaluate(with:)` for a managed object known as one where it is called (`Products`, not
    /// `Any`): the same answer, traps included, without the dynamic casts that an `Any` needs.
    public func evaluate(with object: NSManagedObject) -> Bool {
        evaluate(reader: object)
    }
}

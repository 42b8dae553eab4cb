import Foundation

/// Mirrors SwiftData's `FetchDescriptor`: which models a fetch returns and in what order. The store
/// evaluates the predicate and sorts in SQL where they convert to Core Data's (docs/SwiftData.md), and
/// the fetch evaluates them in memory otherwise, with the same result.
public struct FetchDescriptor<T: PersistentModel> {
    /// Mirrors `predicate`: the models to return (all when `nil`).
    public var predicate: Predicate<T>?
    /// Mirrors `sortBy`.
    public var sortBy: [SortDescriptor<T>]
    /// Mirrors `fetchLimit`.
    public var fetchLimit: Int?
    /// Mirrors `fetchOffset`.
    public var fetchOffset: Int?
    /// Mirrors `includePendingChanges`: whether unsaved changes of the context count (`true`).
    public var includePendingChanges = true
    /// Mirrors `propertiesToFetch`: the properties read with the models (the others when first used).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Mirrors `relationshipKeyPathsForPrefetching`: relationships whose models are read with the fetch.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Mirrors `init(predicate:sortBy:)`.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

import Foundation

/// Mirrors SwiftData's `BackingData`: where a model's persisted values live. OpenSwiftData's own keeps them
/// in a dictionary until the model is inserted, then in the managed object of the model's context.
public protocol BackingData<Model> {
    /// Mirrors `Model`.
    associatedtype Model: PersistentModel
    /// Mirrors `init(for:)`: empty backing data for a model of `modelType`.
    init(for modelType: Model.Type)
    /// Mirrors `persistentModelID`: the identifier of the stored object, `nil` before insertion.
    var persistentModelID: PersistentIdentifier? { get }
    /// Mirrors `metadata`: the store's own object behind the model (here its `NSManagedObject`, or `()`).
    var metadata: Any { get }
    /// Mirrors `getValue(forKey:)`.
    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value
    /// Mirrors `setValue(forKey:to:)`.
    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value)
    /// Mirrors `getTransformableValue(forKey:)`.
    func getTransformableValue<Value>(forKey key: KeyPath<Model, Value>) -> Value
    /// Mirrors `setTransformableValue(forKey:to:)`.
    func setTransformableValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value)
}

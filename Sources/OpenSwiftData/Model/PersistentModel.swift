import Foundation
import Observation

/// Mirrors SwiftData's `PersistentModel`: a class whose stored properties live in backing data, made
/// by `@Model`. A model is one object: equal only to itself, hashed by identity.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable {
    /// Mirrors `Root`: the root model class of the model's inheritance hierarchy (OpenSwiftData builds no
    /// model inheritance: the model itself).
    associatedtype Root: PersistentModel = Self
    /// Mirrors `init(backingData:)`: a model over existing backing data (`@Model` writes it).
    init(backingData: any BackingData<Self>)
    /// Mirrors `persistentBackingData`: where the model's persisted values are.
    var persistentBackingData: any BackingData<Self> { get set }
    /// Mirrors `schemaMetadata`: each persisted property's name, key path, default value and options.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
    /// OpenSwiftData's: the backing data if it is OpenSwiftData's own (``BackingData/_modelStorage``), else `nil`.
    /// `@Model` writes it in the model's class, where the backing data's existential type is found once; generic
    /// code reading ``persistentBackingData`` looks that type up at each call. The default reads ``persistentBackingData``.
    var _$modelStorage: AnyObject? { get }
    /// OpenSwiftData's: whether the model replaces placeholder backing data (``BackingData/_isPlaceholder``) by what it
    /// stands for before handing its backing data out, as `@Model`'s models do: a fetch then makes such a model over a
    /// stand-in of its object, and its storage only when needed. The default is `false`: the model is given its storage.
    static var _$realizesBackingData: Bool { get }
}

extension PersistentModel {
    /// ``persistentBackingData``'s ``BackingData/_modelStorage``.
    public var _$modelStorage: AnyObject? { persistentBackingData._modelStorage }

    /// `false`: a model written without `@Model` keeps the backing data it is given.
    public static var _$realizesBackingData: Bool { false }

    /// Mirrors `persistentModelID`: the model's identifier in its store (temporary until saved).
    public var persistentModelID: PersistentIdentifier {
        guard let storage = ownStorage else { return persistentBackingData.persistentModelID ?? self.storage.detachedIdentifier }
        return storage.persistentModelID ?? storage.detachedIdentifier
    }

    /// Mirrors `id` (`Identifiable`): ``persistentModelID``.
    public var id: PersistentIdentifier { persistentModelID }

    /// Mirrors `modelContext`: the context the model was inserted into or fetched by; `nil` before `insert(_:)`.
    public var modelContext: ModelContext? { storage.context }

    /// Mirrors `hasChanges`: whether the model has changes its context has not saved.
    public var hasChanges: Bool { storage.object?.hasChanges ?? false }

    /// Mirrors `isDeleted`: whether the model was deleted from its context (and not yet saved).
    public var isDeleted: Bool { storage.object?.isDeleted ?? false }

    /// Mirrors `createBackingData()`: backing data for a model made by its own initializer, which keeps the
    /// values until the model is inserted into a context.
    public static func createBackingData<P: PersistentModel>() -> some BackingData<P> { ModelStorage<P>(for: P.self) }

    /// Mirrors `getValue(forKey:)`: a persisted property's value, from the backing data.
    public func getValue<Value>(forKey key: KeyPath<Self, Value>) -> Value { persistentBackingData.getValue(forKey: key) }

    /// Mirrors `setValue(forKey:to:)`: sets a persisted property's value in the backing data.
    public func setValue<Value>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        if let storage = ownStorage { return storage.setValue(forKey: key, to: newValue, of: self) }
        persistentBackingData.setValue(forKey: key, to: newValue)
    }

    /// Mirrors `getTransformableValue(forKey:)`: a transformable property's value.
    public func getTransformableValue<Value>(forKey key: KeyPath<Self, Value>) -> Value {
        persistentBackingData.getTransformableValue(forKey: key)
    }

    /// Mirrors `setTransformableValue(forKey:to:)`.
    public func setTransformableValue<Value>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        persistentBackingData.setTransformableValue(forKey: key, to: newValue)
    }

    /// A model is equal only to itself (`Equatable`).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    /// Hashes the model's identity (`Hashable`).
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The model's storage if its backing data is OpenSwiftData's own (``BackingData/_modelStorage`` is only ever a
    /// `ModelStorage<Model>`, and the model's backing data is a `BackingData<Self>`). Cast through `Unmanaged`: a cast
    /// given `ModelStorage<Self>.self` looks the generic class's metadata up at each call.
    var ownStorage: ModelStorage<Self>? {
        guard let storage = _$modelStorage else { return nil }
        return Unmanaged<ModelStorage<Self>>.fromOpaque(Unmanaged.passUnretained(storage).toOpaque()).takeUnretainedValue()
    }

    /// The model's storage (``ownStorage``), which OpenSwiftData's own paths need.
    var storage: ModelStorage<Self> {
        guard let storage = ownStorage else {
            fatalError("\(Self.self)'s backing data is \(type(of: persistentBackingData)), not one made by createBackingData()")
        }
        return storage
    }
}

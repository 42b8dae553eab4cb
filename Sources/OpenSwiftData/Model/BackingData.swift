import Foundation
import OpenCoreData
import Observation

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
    /// OpenSwiftData's: ``getValue(forKey:)`` with the property's slot, which `@Model`'s accessors pass (no
    /// lookup of the key path; the key path is made only when needed). The default calls ``getValue(forKey:)``.
    func _getValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, slot: _SwiftDataSlot) -> Value
    /// OpenSwiftData's: ``setValue(forKey:to:)`` with the property's slot, and the model when the model's own setter
    /// calls it (`nil` from its `init` accessor); the key path is made only when needed. The default calls
    /// ``setValue(forKey:to:)``.
    func _setValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, to newValue: Value, slot: _SwiftDataSlot,
                          of model: Model?)
    /// OpenSwiftData's: the managed object holding the values, once the model is in a context (`nil` before,
    /// and for backing data of another kind: `@Model`'s getters then call ``_getValue(forKey:slot:)``). Not
    /// retained: the backing data keeps it while the caller holds the backing data.
    var _managedObject: Unmanaged<NSManagedObject>? { get }
    /// OpenSwiftData's: whether this is a placeholder, which a `@Model` model replaces by ``_realized()`` before it
    /// hands its backing data out: the one a model starts with (``_SwiftDataUnsetBackingData``), or a fetched model's
    /// stand-in until its own storage is needed. The default is `false`.
    var _isPlaceholder: Bool { get }
    /// OpenSwiftData's: the backing data a placeholder stands for (made now). The default is the backing data itself.
    func _realized() -> any BackingData<Model>
    /// OpenSwiftData's: this backing data as OpenSwiftData's own storage (only that is not `nil`). The default is `nil`.
    var _modelStorage: AnyObject? { get }
}

extension BackingData {
    /// Calls ``getValue(forKey:)``.
    public func _getValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, slot: _SwiftDataSlot) -> Value { getValue(forKey: key()) }
    /// `nil`: values are read through ``_getValue(forKey:slot:)``.
    public var _managedObject: Unmanaged<NSManagedObject>? { nil }
    /// `false`: backing data that holds values.
    public var _isPlaceholder: Bool { false }
    /// The backing data itself.
    public func _realized() -> any BackingData<Model> { self }
    /// `nil`: backing data of another kind.
    public var _modelStorage: AnyObject? { nil }
    /// Calls ``setValue(forKey:to:)``.
    public func _setValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, to newValue: Value, slot: _SwiftDataSlot,
                                 of model: Model?) {
        setValue(forKey: key(), to: newValue)
    }
}

/// The per-property state `@Model` generates (a `static let` beside each persisted property, as OpenCoreData's
/// `@Managed` does): the property's name and the slot cache of the typed accessors.
public final class _SwiftDataSlot: Sendable {
    let name: String
    @usableFromInline let property: _ManagedMacroSupport.Property

    /// Made by `@_PersistedProperty`'s expansion.
    public init(_ name: String) { (self.name, property) = (name, _ManagedMacroSupport.Property(name)) }
}

/// What `@Model` keeps a model's backing data in (its `_$backingData`): the backing data, and the managed object
/// behind it once there is one, so that a read loads the object from the model itself, without a call through the
/// backing data's existential. The object is cached on the first read that finds one: OpenSwiftData's backing data
/// keeps one object for its life once it has one, and new backing data (`persistentBackingData`'s setter) comes in a
/// new holder.
public struct _SwiftDataBackingHolder<M: PersistentModel> {
    @usableFromInline var data: any BackingData<M>
    @usableFromInline var object: Unmanaged<NSManagedObject>?

    /// The placeholder a model starts with (``_SwiftDataUnsetBackingData``: no allocation).
    @inlinable public init() { (data, object) = (_SwiftDataUnsetBackingData<M>(), nil) }

    /// `data` (`init(backingData:)`, `persistentBackingData`'s setter).
    @inlinable public init(_ data: any BackingData<M>) { (self.data, object) = (data, nil) }

    /// The managed object behind the backing data, cached once known.
    @inlinable @inline(__always)
    mutating func managedObject() -> Unmanaged<NSManagedObject>? {
        if let object { return object }
        object = data._managedObject
        return object
    }
}

/// What `@Model`'s accessors call. A model starts with ``_SwiftDataUnsetBackingData`` (no allocation): a model made
/// over existing backing data (`init(backingData:)`, as every fetched model is) makes none it would throw away, and a
/// model made by its own initializer gets its own when its first property is set (or its backing data asked for).
public enum _SwiftDataAccess {
    /// Replaces a placeholder by the backing data it stands for: the one a model starts with (the placeholder without
    /// an object) by backing data of its own (what `createBackingData()` makes, made here, where the model's type is
    /// known: so its storage type's metadata is found once per call site, not looked up per model), a fetched model's
    /// stand-in by its storage.
    @inlinable @inline(__always)
    public static func prepare<M: PersistentModel>(_ backing: inout _SwiftDataBackingHolder<M>) {
        guard backing.data._isPlaceholder else { return }
        backing.data = backing.managedObject() == nil ? makeBackingData(for: M.self) : backing.data._realized()
    }

    /// A persisted property's first value (its `init` accessor): ``prepare(_:)``, then the value set.
    @inlinable @inline(__always)
    public static func initialize<M: PersistentModel, Value>(_ backing: inout _SwiftDataBackingHolder<M>,
                                                             _ key: @autoclosure () -> KeyPath<M, Value>,
                                                             _ value: Value, _ slot: _SwiftDataSlot) {
        prepare(&backing)
        backing.data._setValue(forKey: key(), to: value, slot: slot, of: nil)
    }

    /// Sets a persisted property's value (a model's setter). The backing data is passed `inout` though only read, as
    /// in ``get(_:_:_:)``: the call reaches it where the model keeps it, with no copy of the existential.
    /// Setting a related model on a detached model inserts it, which reads `_$modelStorage` during this call: an
    /// overlapping access, safe because the property is `@exclusivity(unchecked)` and nothing writes it then (only a
    /// placeholder is ever replaced), so both see the same backing data. A placeholder (a fetched model's stand-in)
    /// is called on a copy: setting a model related to itself realizes the model's storage during the call, which
    /// replaces the stand-in in the holder.
    @inlinable @inline(__always)
    public static func set<M: PersistentModel, Value>(_ backing: inout _SwiftDataBackingHolder<M>,
                                                      _ key: @autoclosure () -> KeyPath<M, Value>, _ newValue: Value,
                                                      _ slot: _SwiftDataSlot, of model: M) {
        if backing.data._isPlaceholder {
            return onCopy(backing.data) { $0._setValue(forKey: key(), to: newValue, slot: slot, of: model) }
        }
        backing.data._setValue(forKey: key(), to: newValue, slot: slot, of: model)
    }

    /// `body` on a copy of `data` (out of line: the copy goes through the existential's value witnesses).
    @usableFromInline @inline(never)
    static func onCopy<M: PersistentModel, R>(_ data: any BackingData<M>, _ body: (any BackingData<M>) -> R) -> R { body(data) }

    /// ``prepare(_:)``, then the backing data's ``BackingData/_modelStorage`` (``PersistentModel/_$modelStorage``).
    @inlinable @inline(__always)
    public static func modelStorage<M: PersistentModel>(_ backing: inout _SwiftDataBackingHolder<M>) -> AnyObject? {
        prepare(&backing)
        return backing.data._modelStorage
    }

    /// ``prepare(_:)``, then the backing data (`persistentBackingData`'s getter).
    @inlinable @inline(__always)
    public static func prepared<M: PersistentModel>(_ backing: inout _SwiftDataBackingHolder<M>) -> any BackingData<M> {
        prepare(&backing)
        return backing.data
    }

    /// A model's first backing data (without `createBackingData()`'s opaque result type, whose metadata the runtime
    /// would look up by name per model).
    @inlinable @inline(__always)
    static func makeBackingData<M: PersistentModel>(for _: M.Type) -> any BackingData<M> { ModelStorage<M>(for: M.self) }

    /// The value of a persisted property: from the managed object the holder caches, else from the backing data. The
    /// holder is passed `inout`: so the call reads it where the model keeps it (a borrowed class property is copied
    /// first: a retain and release per read), and caches the object there.
    @inlinable @inline(__always)
    public static func get<M: PersistentModel, Value>(_ backing: inout _SwiftDataBackingHolder<M>, _ key: @autoclosure () -> KeyPath<M, Value>,
                                                      _ slot: _SwiftDataSlot) -> Value {
        if let object = backing.managedObject(),
           let value = object._withUnsafeGuaranteedRef({ TypedSlots.read($0, slot.property, as: Value.self) }) { return value }
        if backing.data._isPlaceholder { return onCopy(backing.data) { $0._getValue(forKey: key(), slot: slot) } }
        return backing.data._getValue(forKey: key(), slot: slot)
    }
}

/// The backing data `@Model` declares a model with: a placeholder holding nothing (an empty value, so that making
/// it allocates nothing), which the model's `init` accessors and `persistentBackingData` replace by a
/// `createBackingData()` before anything is stored, and `init(backingData:)` by the backing data it is given.
public struct _SwiftDataUnsetBackingData<Model: PersistentModel>: BackingData {
    /// The placeholder.
    @inlinable public init() {}
    /// The placeholder (``BackingData/init(for:)``).
    public init(for modelType: Model.Type) {}
    /// `nil`: no stored object.
    public var persistentModelID: PersistentIdentifier? { nil }
    /// `()`: no stored object.
    public var metadata: Any { () }
    /// `true`.
    public var _isPlaceholder: Bool { true }
    /// Backing data of the model's own (`createBackingData()`'s).
    public func _realized() -> any BackingData<Model> { _SwiftDataAccess.makeBackingData(for: Model.self) }
    /// Never called: a model's accessors replace the placeholder first.
    public func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value { unset() }
    /// Never called: a model's accessors replace the placeholder first.
    public func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) { unset() }
    /// Never called: a model's accessors replace the placeholder first.
    public func getTransformableValue<Value>(forKey key: KeyPath<Model, Value>) -> Value { unset() }
    /// Never called: a model's accessors replace the placeholder first.
    public func setTransformableValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) { unset() }

    private func unset() -> Never { fatalError("\(Model.self)'s values were used before it had backing data") }
}

/// What `@Model` keeps for Observation (its `_$observationRegistrar`): the model's `ObservationRegistrar`,
/// made when a `withObservationTracking` closure first reads the model. Until then nobody can be observing
/// the model, so a change has nobody to tell, and a model that is never observed makes no registrar. (The
/// registrar is boxed: `ObservationRegistrar`'s layout is resilient, and an optional of it would cost
/// every getter a metadata lookup.)
public struct _SwiftDataObservation: Sendable {
    @usableFromInline var box: _SwiftDataRegistrarBox?

    /// Made by `@Model`'s expansion.
    public init() {}

    /// `ObservationRegistrar.access(_:keyPath:)` when a `withObservationTracking` closure may be running
    /// (outside one, the registrar would record nothing).
    @inlinable @inline(__always)
    public mutating func access<M: Observable, Value>(_ model: M, _ key: @autoclosure () -> KeyPath<M, Value>) {
        if _ManagedMacroSupport.observationMayBeTracking { track(model, key()) }
    }

    /// The read, told to the registrar (made now if it is the first); out of line, so that the getters
    /// that inline ``access(_:_:)`` do not touch the registrar's type.
    @usableFromInline @inline(never)
    mutating func track<M: Observable, Value>(_ model: M, _ key: KeyPath<M, Value>) {
        if box == nil { box = _SwiftDataRegistrarBox() }
        box?.registrar.access(model, keyPath: key)
    }

    /// `ObservationRegistrar.withMutation(of:keyPath:_:)`, or just the mutation while nothing ever tracked the
    /// model.
    @inlinable @inline(__always)
    public func withMutation<M: Observable, Value, R>(of model: M, _ key: @autoclosure () -> KeyPath<M, Value>,
                                                      _ mutation: () throws -> R) rethrows -> R {
        guard let box else { return try mutation() }
        return try box.registrar.withMutation(of: model, keyPath: key(), mutation)
    }
}

/// A model's `ObservationRegistrar`, once something observes the model (``_SwiftDataObservation``).
public final class _SwiftDataRegistrarBox: Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline init() {}
}

import Foundation
import OpenCoreData

/// The backing data `@Model` classes get (``PersistentModel/createBackingData()``): the values themselves
/// while the model is detached (made by its initializer, not yet inserted), then the managed object that
/// holds them in the model's context. One storage serves a model its whole life, so inserting a model
/// changes its state, not its backing data.
@usableFromInline final class ModelStorage<Model: PersistentModel>: BackingData {
    enum State {
        /// The values set so far, one per property (Swift values: models, arrays of models, attributes).
        case detached([DetachedValue])
        case managed(NSManagedObject, ModelContext)
    }

    private(set) var state: State = .detached([])
    /// The object of ``state`` once managed, kept beside it so that a read loads one word (``state`` keeps it alive).
    @usableFromInline private(set) var _managedObject: Unmanaged<NSManagedObject>?
    /// The identifier a detached model shows (SwiftData gives an unsaved model a temporary identifier).
    private(set) lazy var detachedIdentifier = PersistentIdentifier(temporary: Schema.entityName(for: Model.self))

    @usableFromInline init(for modelType: Model.Type) {}

    /// Backing data over `object` of `context` (a fetched model's).
    init(_ object: NSManagedObject, _ context: ModelContext) { (state, _managedObject) = (.managed(object, context), .passUnretained(object)) }

    var object: NSManagedObject? {
        if case .managed(let object, _) = state { return object }
        return nil
    }

    var context: ModelContext? {
        if case .managed(_, let context) = state { return context }
        return nil
    }

    @usableFromInline var persistentModelID: PersistentIdentifier? { object.map { PersistentIdentifier($0.objectID) } }

    @usableFromInline var metadata: Any { object as Any? ?? () }

    @usableFromInline var _modelStorage: AnyObject? { self }

    @usableFromInline func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        _getValue(forKey: key, slot: ModelKeys.entry(of: key, in: Model.self).slot)
    }

    @usableFromInline func _getValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, slot: _SwiftDataSlot) -> Value {
        switch state {
        case .managed(let object, let context):
            return ManagedAccess.read(object, context, slot)
        case .detached(let values):
            if let i = DetachedValue.index(of: slot, in: values) { return values[i].value as! Value }
            guard let empty = ModelValues.emptyValue(of: Value.self) as? Value else {
                fatalError("\(Model.self).\(slot.name) was read before it was given a value")
            }
            return empty
        }
    }

    @usableFromInline func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        _setValue(forKey: key, to: newValue, slot: ModelKeys.entry(of: key, in: Model.self).slot, of: nil)
    }

    /// Sets a value; a detached `model` given a related model of a context joins that context first, as
    /// SwiftData inserts it.
    @usableFromInline func _setValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, to newValue: Value,
                                            slot: _SwiftDataSlot, of model: Model?) {
        if let model, case .detached = state, let context = ModelValues.context(of: newValue) { context.insert(model) }
        switch state {
        case .detached(var values):
            state = .detached([])  // the list is then referenced once: set in place, not copied
            if let i = DetachedValue.index(of: slot, in: values) {
                values[i].value = newValue
            } else {
                if values.isEmpty { values.reserveCapacity(8) }
                values.append(DetachedValue(slot: slot, value: newValue))
            }
            state = .detached(values)
        case .managed(let object, let context):
            ManagedAccess.write(newValue, object, context, slot)
        }
    }

    /// ``setValue(forKey:to:)`` from the model itself (``PersistentModel/setValue(forKey:to:)``).
    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value, of model: Model) {
        _setValue(forKey: key, to: newValue, slot: ModelKeys.entry(of: key, in: Model.self).slot, of: model)
    }

    @usableFromInline func getTransformableValue<Value>(forKey key: KeyPath<Model, Value>) -> Value { getValue(forKey: key) }

    @usableFromInline func setTransformableValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        setValue(forKey: key, to: newValue)
    }

    /// Moves a detached model's values into `object` of `context` (``ModelContext/insert(_:)``).
    func attach(to object: NSManagedObject, in context: ModelContext) {
        guard case .detached(let values) = state else { return }
        (state, _managedObject) = (.managed(object, context), .passUnretained(object))
        for i in values.indices where !TypedSlots.write(object, values[i].slot.property, any: values[i].value) {
            object.setValue(context.values.encode(values[i].value), forKey: values[i].slot.name)
        }
    }
}

/// Backing data a context makes over a managed object (``ModelStorage``, ``FetchedBackingData``): a protocol, so that
/// a fetch's models are made through the backing data type's own metadata and conformance, found once for the fetch
/// (see ``ModelContext/models(for:as:)``).
protocol ManagedBackingData: BackingData {
    init(_ object: NSManagedObject, _ context: ModelContext)
}

extension ModelStorage: ManagedBackingData {}

/// A detached model's value of one property, with the slot it was set through (its typed setter moves it to the
/// object on insertion). A model has few properties: a list searched by slot, not a dictionary that would hash the
/// property's name at every set. (Not nested in the generic ``ModelStorage``: a list of a type generic over the
/// model would be searched through unspecialized code.)
struct DetachedValue {
    let slot: _SwiftDataSlot
    var value: Any

    /// Where `slot`'s property's value is in a detached model's list: found by the slot itself (`@Model`'s accessors
    /// pass their own), else by its name (a key path's set or read passes the slot found for its name).
    /// (By index: a closure given each value would copy it, its `Any` included.)
    static func index(of slot: _SwiftDataSlot, in values: [DetachedValue]) -> Int? {
        for i in values.indices where values[i].slot === slot { return i }
        for i in values.indices where values[i].slot.name == slot.name { return i }
        return nil
    }
}

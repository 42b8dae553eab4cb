import Foundation
import OpenCoreData

/// The backing data `@Model` classes get (``PersistentModel/createBackingData()``): the values themselves
/// while the model is detached (made by its initializer, not yet inserted), then the managed object that
/// holds them in the model's context. One storage serves a model its whole life, so inserting a model
/// changes its state, not its backing data.
final class ModelStorage<Model: PersistentModel>: BackingData {
    enum State {
        /// Values by property name (Swift values: models, arrays of models, attributes).
        case detached([String: Any])
        case managed(NSManagedObject, ModelContext)
    }

    var state: State = .detached([:])
    /// The identifier a detached model shows (SwiftData gives an unsaved model a temporary identifier).
    private(set) lazy var detachedIdentifier = PersistentIdentifier(temporary: Schema.entityName(for: Model.self))

    init(for modelType: Model.Type) {}

    var object: NSManagedObject? {
        if case .managed(let object, _) = state { return object }
        return nil
    }

    var context: ModelContext? {
        if case .managed(_, let context) = state { return context }
        return nil
    }

    var persistentModelID: PersistentIdentifier? { object.map { PersistentIdentifier($0.objectID) } }

    var metadata: Any { object as Any? ?? () }

    var _managedObject: Unmanaged<NSManagedObject>? {
        if case .managed(let object, _) = state { return .passUnretained(object) }
        return nil
    }

    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        _getValue(forKey: key, slot: ModelKeys.entry(of: key, in: Model.self).slot)
    }

    func _getValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, slot: _SwiftDataSlot) -> Value {
        // The common case first, without retaining the context.
        if case .managed(let object, _) = state, let value = TypedSlots.read(object, slot.property, as: Value.self) { return value }
        switch state {
        case .managed(let object, let context):
            return context.values.decode(object.value(forKey: slot.name), as: Value.self)
        case .detached(let values):
            if let value = values[slot.name] { return value as! Value }
            guard let empty = ModelValues.emptyValue(of: Value.self) as? Value else {
                fatalError("\(Model.self).\(slot.name) was read before it was given a value")
            }
            return empty
        }
    }

    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        _setValue(forKey: key, to: newValue, slot: ModelKeys.entry(of: key, in: Model.self).slot, of: nil)
    }

    /// Sets a value; a detached `model` given a related model of a context joins that context first, as
    /// SwiftData inserts it.
    func _setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value, slot: _SwiftDataSlot, of model: Model?) {
        if let model, case .detached = state, let context = ModelValues.context(of: newValue) { context.insert(model) }
        switch state {
        case .detached(var values):
            state = .detached([:])  // the dictionary is then referenced once: set in place, not copied
            values[slot.name] = newValue
            state = .detached(values)
        case .managed(let object, let context):
            if !TypedSlots.write(object, slot.property, newValue) {
                object.setValue(context.values.encode(newValue), forKey: slot.name)
            }
            context.changed()
        }
    }

    /// ``setValue(forKey:to:)`` from the model itself (``PersistentModel/setValue(forKey:to:)``).
    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value, of model: Model) {
        _setValue(forKey: key, to: newValue, slot: ModelKeys.entry(of: key, in: Model.self).slot, of: model)
    }

    func getTransformableValue<Value>(forKey key: KeyPath<Model, Value>) -> Value { getValue(forKey: key) }

    func setTransformableValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) { setValue(forKey: key, to: newValue) }

    /// Moves a detached model's values into `object` of `context` (``ModelContext/insert(_:)``).
    func attach(to object: NSManagedObject, in context: ModelContext) {
        guard case .detached(let values) = state else { return }
        state = .managed(object, context)
        let slots = ModelKeys.slots(in: Model.self)
        for (name, value) in values where !(slots[name].map { TypedSlots.write(object, $0.property, any: value) } ?? false) {
            object.setValue(context.values.encode(value), forKey: name)
        }
    }
}

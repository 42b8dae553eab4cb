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

    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        let entry = ModelKeys.entry(of: key, in: Model.self)
        if case .managed(let object, _) = state, let value = TypedSlots.read(object, entry.property, as: Value.self) { return value }
        let name = entry.name
        switch state {
        case .detached(let values):
            if let value = values[name] { return value as! Value }
            guard let empty = ModelValues.emptyValue(of: Value.self) as? Value else {
                fatalError("\(Model.self).\(name) was read before it was given a value")
            }
            return empty
        case .managed(let object, let context):
            return context.values.decode(object.value(forKey: name), as: Value.self)
        }
    }

    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        let entry = ModelKeys.entry(of: key, in: Model.self)
        switch state {
        case .detached(var values):
            state = .detached([:])  // the dictionary is then referenced once: set in place, not copied
            values[entry.name] = newValue
            state = .detached(values)
        case .managed(let object, let context):
            if !TypedSlots.write(object, entry.property, newValue) {
                object.setValue(context.values.encode(newValue), forKey: entry.name)
            }
            context.changed()
        }
    }

    /// ``setValue(forKey:to:)`` from the model itself: a detached model given a related model of a context
    /// joins that context first, as SwiftData inserts it.
    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value, of model: Model) {
        if case .detached = state, let context = ModelValues.context(of: newValue) { context.insert(model) }
        setValue(forKey: key, to: newValue)
    }

    func getTransformableValue<Value>(forKey key: KeyPath<Model, Value>) -> Value { getValue(forKey: key) }

    func setTransformableValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) { setValue(forKey: key, to: newValue) }

    /// Moves a detached model's values into `object` of `context` (``ModelContext/insert(_:)``).
    func attach(to object: NSManagedObject, in context: ModelContext) {
        guard case .detached(let values) = state else { return }
        state = .managed(object, context)
        for (name, value) in values where !TypedSlots.write(object, ModelKeys.property(named: name, in: Model.self), any: value) {
            object.setValue(context.values.encode(value), forKey: name)
        }
    }
}

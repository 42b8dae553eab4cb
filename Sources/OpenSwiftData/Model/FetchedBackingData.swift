import Foundation
import OpenCoreData

/// A fetched `@Model` model's backing data until the model's own storage is needed: the managed object and its
/// context, a value held in the model (no allocation). A model whose type realizes placeholders
/// (``PersistentModel/_$realizesBackingData``) replaces it by a ``ModelStorage`` over the same object the first time
/// its backing data or storage is asked for; reads and writes of its properties go to the object either way.
struct FetchedBackingData<Model: PersistentModel>: ManagedBackingData {
    let object: NSManagedObject
    let context: ModelContext

    init(_ object: NSManagedObject, _ context: ModelContext) { (self.object, self.context) = (object, context) }

    /// Never called: a fetched model's stand-in is made over its object.
    init(for modelType: Model.Type) { fatalError("\(Model.self)'s fetched backing data is made over its object") }

    var persistentModelID: PersistentIdentifier? { PersistentIdentifier(object.objectID) }

    var metadata: Any { object }

    var _managedObject: Unmanaged<NSManagedObject>? { .passUnretained(object) }

    var _isPlaceholder: Bool { true }

    func _realized() -> any BackingData<Model> { ModelStorage<Model>(object, context) }

    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        _getValue(forKey: key, slot: ModelKeys.entry(of: key, in: Model.self).slot)
    }

    func _getValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, slot: _SwiftDataSlot) -> Value {
        ManagedAccess.read(object, context, slot)
    }

    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        ManagedAccess.write(newValue, object, context, ModelKeys.entry(of: key, in: Model.self).slot)
    }

    func _setValue<Value>(forKey key: @autoclosure () -> KeyPath<Model, Value>, to newValue: Value, slot: _SwiftDataSlot,
                          of model: Model?) {
        ManagedAccess.write(newValue, object, context, slot)
    }

    func getTransformableValue<Value>(forKey key: KeyPath<Model, Value>) -> Value { getValue(forKey: key) }

    func setTransformableValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        setValue(forKey: key, to: newValue)
    }
}

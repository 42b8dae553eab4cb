import Foundation
import OpenCoreData

/// A property's value in the managed object of a model's context: through the property's typed slot where it has one,
/// else the object's value as the model's type has it (``ModelValues``).
enum ManagedAccess {
    static func read<Value>(_ object: NSManagedObject, _ context: ModelContext, _ slot: _SwiftDataSlot) -> Value {
        if let value = TypedSlots.read(object, slot.property, as: Value.self) { return value }
        return context.values.decode(object.value(forKey: slot.name), as: Value.self)
    }

    static func write<Value>(_ value: Value, _ object: NSManagedObject, _ context: ModelContext, _ slot: _SwiftDataSlot) {
        if !TypedSlots.write(object, slot.property, value) {
            object.setValue(context.values.encode(value), forKey: slot.name)
        }
        context.changed()
    }
}

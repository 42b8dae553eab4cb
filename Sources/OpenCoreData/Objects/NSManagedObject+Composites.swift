import Foundation

// A composite attribute's value lives in its elements' slots (see `CompositeLayout`): reading the
// composite makes its dictionary of them, setting it sets each of them, and the dictionaries of changed
// or saved values show the composite under its own name, not its elements under theirs.
extension NSManagedObject {
    /// Sets the elements of the composite in `slot` from `value` (a dictionary keyed by element names,
    /// a missing key meaning nil, or nil for all), each as ``setAttribute(_:_:)`` sets an attribute —
    /// recording a change of each element that changes — or, when `primitive`, as
    /// ``setPrimitiveAttribute(_:_:)``. Throws, changing nothing, for a value that is not such a
    /// dictionary or a key that names no element.
    func setComposite(_ slot: Int, _ value: Any?, primitive: Bool) throws {
        guard let composite = layout.composite(atSlot: slot) else { return }
        let leaves = try composite.tree.leafValues(of: value, keyPath: composite.attribute.name)
        for (leaf, element) in leaves {
            let raw = layout.kinds[leaf].attributeType == .transformableAttributeType ? TransformableValue.slotValue(element) : Value(any: element)
            if primitive { setPrimitiveAttribute(leaf, raw) } else { setAttribute(leaf, raw) }
        }
    }

    /// Replaces the entries of composite elements in `result` (keyed `address.city`) by their
    /// composites' values read from `values`, under the composites' names (`NSNull` for a nil one).
    func foldComposites(_ result: inout [String: Any], _ values: [Value]) {
        for composite in layout.composites {
            var found = false
            for leaf in composite.tree.leafSlots where result.removeValue(forKey: layout.properties[leaf].name) != nil { found = true }
            if found { result[composite.attribute.name] = composite.value(in: values).anyValue ?? NSNull() }
        }
    }
}

extension _ManagedMacroSupport {
    /// The getter of a `@Managed` composite attribute property (`[String: Any]?`, Xcode's type for one):
    /// the dictionary of its elements' values, `nil` when every element is nil.
    /// (A transformable attribute's `[String: Any]?` property reads as any custom type's does.)
    public static func get(_ object: NSManagedObject, _ property: Property, as _: [String: Any]?.Type) -> [String: Any]? {
        object.checkQueue("@Managed property getter")
        let slot = property.slot(in: object, .attribute)
        guard object.layout.kinds[slot].attributeType == .compositeAttributeType else {
            return transformableValue(object, property, as: [String: Any]?.self)
        }
        return object.value(at: slot).anyValue as? [String: Any]
    }

    /// The getter of a non-optional `@Managed` composite property: an empty dictionary when every
    /// element is nil.
    public static func get(_ object: NSManagedObject, _ property: Property, as _: [String: Any].Type) -> [String: Any] {
        let slot = property.slot(in: object, .attribute)
        guard object.layout.kinds[slot].attributeType == .compositeAttributeType else {
            return transformableValue(object, property, as: [String: Any].self)
        }
        return get(object, property, as: [String: Any]?.self) ?? [:]
    }

    /// The setter of a `@Managed` composite attribute property: sets each element, as
    /// `setValue(_:forKey:)` with the dictionary does. Traps for a key that names no element.
    /// (A transformable attribute's `[String: Any]?` property sets as any custom type's does.)
    public static func set(_ object: NSManagedObject, _ value: [String: Any]?, _ property: Property) {
        object.checkQueue("@Managed property setter")
        let (slot, isPrimitive) = property.primitiveSlot(in: object, .attribute)
        guard object.layout.kinds[slot].attributeType == .compositeAttributeType else { return setTransformable(object, value, property) }
        do { try object.setComposite(slot, value, primitive: isPrimitive) } catch { fatalError("\(error)") }
    }

    /// The setter of a non-optional `@Managed` composite property.
    public static func set(_ object: NSManagedObject, _ value: [String: Any], _ property: Property) {
        let slot = property.slot(in: object, .attribute)
        guard object.layout.kinds[slot].attributeType == .compositeAttributeType else { return setTransformable(object, value, property) }
        set(object, Optional(value), property)
    }
}

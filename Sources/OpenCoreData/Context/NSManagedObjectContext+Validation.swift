import Foundation

extension NSManagedObjectContext {
    /// A save's validation, as Core Data runs it: `validateForInsert()` of each inserted object,
    /// `validateForUpdate()` of each updated one, `validateForDelete()` of each deleted one (each may be
    /// overridden; the defaults check the model's rules). One error throws as itself; several as
    /// `NSValidationMultipleErrorsError` with every single error under `NSDetailedErrorsKey`.
    func validate(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) throws {
        var errors: [NSError] = []
        func note(_ error: Error) throws {
            let error = error as NSError
            // A store that failed to answer (a relationship read to validate it): not a validation error.
            if error.domain == NSCocoaErrorDomain, (134000...134999).contains(error.code) { throw error }
            if error.domain == NSCocoaErrorDomain, error.code == NSValidationMultipleErrorsError {
                errors += (error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [error]
            } else {
                errors.append(error)
            }
        }
        // Called directly (a method reference per object would make a closure for each).
        for object in deleted {
            do { try object.validateForDelete() } catch { try note(error) }
        }
        for object in inserted {
            do { try object.validateForInsert() } catch { try note(error) }
        }
        for object in updated {
            do { try object.validateForUpdate() } catch { try note(error) }
        }
        try Self.throwing(errors)
    }

    /// Throws nothing, one error as itself, or several as `NSValidationMultipleErrorsError`.
    static func throwing(_ errors: [CoreDataError]) throws {
        if !errors.isEmpty { try throwing(errors as [NSError]) }
    }

    /// Throws nothing, one error as itself, or several as `NSValidationMultipleErrorsError` (the objects
    /// that failed under `NSAffectedObjectsErrorKey`).
    static func throwing(_ errors: [NSError]) throws {
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            let messages = errors.map { ($0 as? CoreDataError)?.message ?? $0.localizedDescription }
            // The objects that failed, once each, in the order of their errors.
            var seen = Set<ObjectIdentifier>()
            let objects = errors.compactMap { $0.userInfo[NSValidationObjectErrorKey] as? NSManagedObject }.filter { seen.insert(ObjectIdentifier($0)).inserted }
            throw CoreDataError(NSValidationMultipleErrorsError, "Multiple validation errors occurred: " + messages.joined(separator: " "),
                                userInfo: [NSDetailedErrorsKey: errors, NSAffectedObjectsErrorKey: objects])
        }
    }

    /// The model's rules for one object: required values present, values of the attribute's type meeting
    /// its validation predicates (see AttributeValidation.swift), relationship counts.
    static func propertyErrors(_ object: NSManagedObject) -> [CoreDataError] {
        let layout = object.layout
        let values = object.values
        if layout.relationshipSlots.isEmpty, layout.composites.isEmpty, attributesPass(layout, values) { return [] }
        var errors: [CoreDataError] = []
        let entityName = object.entity.name ?? "?"
        if !layout.relationshipSlots.isEmpty { errors += relationshipErrors(object) }
        for (slot, attribute, _) in layout.validatedAttributes {
            errors += attributeErrors(values[slot], attribute, object: object, entityName: entityName)
        }
        for composite in layout.composites {
            errors += compositeErrors(composite.tree, composite.attribute, keyPath: composite.attribute.name, values: values,
                                      object: object, entityName: entityName)
        }
        return errors
    }

    /// Whether every validated attribute of `values` plainly meets the model's rules: nil where optional,
    /// else a value already of the attribute's type with no validation predicates to check. False means
    /// only that ``attributeErrors(_:_:object:entityName:)`` must look.
    private static func attributesPass(_ layout: EntityLayout, _ values: [Value]) -> Bool {
        for (slot, attribute, type) in layout.validatedAttributes {
            switch values[slot] {
            case .null:
                guard attribute.isOptional else { return false }
            case let value:
                guard type.holdsOwnRepresentation(value), attribute.validationPredicates.isEmpty else { return false }
            }
        }
        return true
    }

    /// The model's rules for a composite's elements in `values`. A composite whose elements are all nil
    /// has no value: an error when it is required, else nothing more is checked. A composite with a
    /// value has each element checked as an attribute (a leaf under its key path, `address.city`; a
    /// nested composite the same way, as a whole first).
    static func compositeErrors(_ tree: CompositeTree, _ composite: NSCompositeAttributeDescription, keyPath: String, values: [Value],
                                object: NSManagedObject, entityName: String) -> [CoreDataError] {
        guard tree.leafSlots.contains(where: { !values[$0].isNull }) else {
            guard !composite.isOptional else { return [] }
            return [CoreDataError(NSValidationMissingMandatoryPropertyError, "\(entityName).\(keyPath) is a required value.",
                                  userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: keyPath])]
        }
        var errors: [CoreDataError] = []
        for (name, node) in tree.elements {
            switch node {
            case .leaf(let slot):
                guard let attribute = object.layout.attribute(slot) else { continue }
                errors += attributeErrors(values[slot], attribute, object: object, entityName: entityName)
            case .nested(let nested, let subtree):
                errors += compositeErrors(subtree, nested, keyPath: keyPath + "." + name, values: values, object: object, entityName: entityName)
            }
        }
        return errors
    }

    /// The model's rules for one attribute's value (``propertyErrors(_:)``, and `validateValue(_:forKey:)`).
    @inline(__always)
    static func attributeErrors(_ value: Value, _ attribute: NSAttributeDescription, object: NSManagedObject, entityName: String) -> [CoreDataError] {
        var errors: [CoreDataError] = []
        if value.isNull {
            if !attribute.isOptional {
                errors.append(CoreDataError(NSValidationMissingMandatoryPropertyError,
                                            "\(entityName).\(attribute.name) is a required value.",
                                            userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: attribute.name]))
            }
        } else if !attribute.attributeType.holdsOwnRepresentation(value), attribute.attributeType.coerce(value) != value {
            let problem = value.isNaN
                ? "is NaN (not a number), which a SQLite store cannot keep (SQLite stores NaN as NULL)"
                : "must be a \(attribute.attributeType.name), not \(PredicatePrinter.format(ExpressionNode.constant(value)))"
            errors.append(CoreDataError(NSManagedObjectValidationError,
                                        "\(entityName).\(attribute.name) \(problem).",
                                        userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: attribute.name,
                                                   NSValidationValueErrorKey: value.anyValue ?? NSNull()]))
        } else if !attribute.validationPredicates.isEmpty {
            errors += attribute.validationErrors(for: value, object: object, entityName: entityName)
        }
        return errors
    }

    /// The model's rules for a value given for a relationship (`validateValue(_:forKey:)`): required, and
    /// a to-many's count within its bounds.
    static func relationshipErrors(_ value: Any?, _ d: NSRelationshipDescription, object: NSManagedObject, entityName: String) -> [CoreDataError] {
        let info: [String: Any] = [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: d.name]
        let unwrapped = value.flatMap { $0 is NSNull ? nil : $0 }
        guard d.isToMany else {
            return d.isOptional || unwrapped != nil ? []
                : [CoreDataError(NSValidationMissingMandatoryPropertyError, "\(entityName).\(d.name) is a required value.", userInfo: info)]
        }
        let count: Int
        switch unwrapped {
        case let s as NSSet: count = s.count
        case let s as NSOrderedSet: count = s.count
        case let a as [Any]: count = a.count
        case let s as Set<AnyHashable>: count = s.count
        default: count = 0
        }
        if count < d.minCount, !(d.isOptional && count == 0) {
            return [CoreDataError(NSValidationRelationshipLacksMinimumCountError,
                                  "\(entityName).\(d.name) has \(count) object\(count == 1 ? "" : "s"), fewer than its minimum count \(d.minCount).", userInfo: info)]
        }
        if d.maxCount > 0, count > d.maxCount {
            return [CoreDataError(NSValidationRelationshipExceedsMaximumCountError,
                                  "\(entityName).\(d.name) has \(count) objects, more than its maximum count \(d.maxCount).", userInfo: info)]
        }
        return []
    }
}

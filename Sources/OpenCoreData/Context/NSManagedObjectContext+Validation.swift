import Foundation

extension NSManagedObjectContext {
    /// Required values present, values of the attribute's type meeting its validation predicates (see
    /// AttributeValidation.swift). One error throws as itself; several as
    /// `NSValidationMultipleErrorsError` with `NSDetailedErrorsKey`.
    func validate(_ lists: [[NSManagedObject]], deleted: [NSManagedObject] = []) throws {
        var errors: [CoreDataError] = deniedDeletes(deleted)
        for object in lists.joined() {
            let layout = object.layout, entityName = object.entity.name ?? "?"
            if !layout.relationshipSlots.isEmpty { errors += relationshipErrors(object) }
            let values = object.values
            for (slot, attribute) in layout.validatedAttributes {
                let value = values[slot]
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
            }
        }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            throw CoreDataError(NSValidationMultipleErrorsError,
                                "Multiple validation errors occurred: " + errors.map(\.message).joined(separator: " "),
                                userInfo: [NSDetailedErrorsKey: errors as [NSError]])
        }
    }
}

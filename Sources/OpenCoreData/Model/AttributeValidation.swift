import Foundation

/// Validation predicates at save: an attribute's minimum, maximum and regular expression (a model file's
/// `minValueString`, `maxValueString`, `regularExpressionString`, `minDateTimeInterval`…, or
/// `setValidationPredicates(_:withValidationWarnings:)`), as Core Data checks them before a save.
extension NSAttributeDescription {
    /// The errors for a non-nil value that fails a validation predicate: each with the predicate's warning
    /// as its code when the warning is a number (Core Data's `NSValidationNumberTooSmallError`…), else
    /// `NSManagedObjectValidationError` with the warning in the message.
    func validationErrors(for value: Value, object: NSManagedObject, entityName: String) -> [CoreDataError] {
        var errors: [CoreDataError] = []
        for (index, predicate) in validationPredicates.enumerated() where !Self.satisfies(value, predicate) {
            let warning = index < validationWarnings.count ? validationWarnings[index] : nil
            let code = (warning as? NSNumber)?.intValue ?? (warning as? Int) ?? NSManagedObjectValidationError
            let shown = PredicatePrinter.format(ExpressionNode.constant(value))
            let model = object.entity.managedObjectModel
            let entity = model?.localized(entity: entityName) ?? entityName, property = model?.localized(entity: entityName, property: name) ?? name
            var message = "\(entity).\(property) = \(shown) does not satisfy its validation predicate \(predicate.predicateFormat)"
            if let text = warning as? String { message += " (\(model?.localized(errorString: text) ?? text))" }
            errors.append(CoreDataError(code, message + ".", userInfo: [
                NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: name, NSValidationValueErrorKey: value.anyValue ?? NSNull(),
                NSValidationPredicateErrorKey: predicate,
            ]))
        }
        return errors
    }

    /// Whether `value` meets `predicate`: the forms a model file makes (`SELF >= bound`, `length <= n`,
    /// `SELF MATCHES pattern`) directly — `length` counts UTF-16 code units of a string, as `NSString`
    /// does, and bytes of data —, any other predicate evaluated with the value as `SELF`.
    static func satisfies(_ value: Value, _ predicate: NSPredicate) -> Bool {
        guard case .comparison(let c) = predicate.node, c.modifier == .direct, case .constant(let bound) = c.right else {
            return (try? predicate.evaluate(validating: value.anyValue)) ?? false
        }
        let subject: Value
        switch (c.left, value) {
        case (.evaluatedObject, _): subject = value
        case (.keyPath("length"), .string(let s)): subject = .int(Int64(s.utf16.count))
        case (.keyPath("length"), .data(let d)): subject = .int(Int64(d.count))
        default: return (try? predicate.evaluate(validating: value.anyValue)) ?? false
        }
        switch c.op {
        case .matches:
            guard case .string(let s) = subject, case .string(let pattern) = bound else { return false }
            return (try? NSPredicate(node: .comparison(ComparisonNode(.constant(.string(s)), .matches, .constant(.string(pattern)))))
                .evaluate(validating: nil)) ?? false
        case .greaterThanOrEqualTo, .lessThanOrEqualTo, .greaterThan, .lessThan:
            guard let order = order(subject, bound) else { return false }
            switch c.op {
            case .greaterThanOrEqualTo: return order != .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order == .orderedAscending
            }
        default:
            return (try? predicate.evaluate(validating: value.anyValue)) ?? false
        }
    }

    /// How a number or date compares with a bound of its kind.
    private static func order(_ a: Value, _ b: Value) -> ComparisonResult? {
        switch (a, b) {
        case (.date(let x), .date(let y)): return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        case (.decimal(let x), _):
            guard let y = b.decimalValue else { return nil }
            return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        case (.int(let x), .int(let y)): return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        default:
            guard let x = a.doubleValue, let y = b.doubleValue else { return nil }
            return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        }
    }
}

extension Value {
    /// The value as a `Decimal` when it is a number.
    fileprivate var decimalValue: Decimal? {
        switch self {
        case .decimal(let d): return d
        case .int(let i): return Decimal(i)
        case .double(let d): return Decimal(shortestDigitsOf: d)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }
}

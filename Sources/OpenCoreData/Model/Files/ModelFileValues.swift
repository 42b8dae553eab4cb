import Foundation

/// Values as a model file writes them — default values, minimum and maximum — and the validation
/// predicates Xcode's model compiler makes of the minimum, maximum and regular expression.
enum ModelFileValues {
    /// What a minimum or maximum bounds: the value itself (numbers, dates) or its length (strings, data).
    enum BoundKind {
        case number, date, length
    }

    static func boundKind(of type: NSAttributeType) -> BoundKind? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
             .doubleAttributeType, .floatAttributeType: return .number
        case .dateAttributeType: return .date
        case .stringAttributeType, .binaryDataAttributeType: return .length
        default: return nil
        }
    }

    /// A default value written as `defaultValueString`, in the attribute's own representation: `nil` when
    /// the text is not a value of the type. An empty text is no default, except for a string attribute.
    static func parseDefault(_ text: String, type: NSAttributeType) -> Value?? {
        if text.isEmpty && type != .stringAttributeType { return .some(nil) }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            guard let i = Int64(text) else { return nil }
            return type.coerce(.int(i)).map { .some($0) }
        case .doubleAttributeType, .floatAttributeType:
            guard let d = parseDouble(text) else { return nil }
            return type.coerce(.double(d)).map { .some($0) }
        case .decimalAttributeType:
            guard parseDouble(text) != nil, let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !d.isNaN else { return nil }
            return .some(.decimal(d))
        case .stringAttributeType: return .some(.string(text))
        case .booleanAttributeType:
            switch text {
            case "YES": return .some(.bool(true))
            case "NO": return .some(.bool(false))
            default: return nil
            }
        case .UUIDAttributeType: return UUID(uuidString: text).map { .some(.uuid($0)) }
        case .URIAttributeType: return URL(string: text).map { .some(.url($0)) }
        case .dateAttributeType, .binaryDataAttributeType, .transformableAttributeType, .objectIDAttributeType, .undefinedAttributeType,
             .compositeAttributeType:
            return .some(nil)  // not written as text
        }
    }

    /// A finite number in the file's notation (`-12`, `0.5`, `1e-05`).
    static func parseDouble(_ text: String) -> Double? {
        guard let d = Double(text), d.isFinite else { return nil }
        return d
    }

    /// A default value as `defaultValueString` writes it, `nil` when the type's defaults are not text.
    static func formatDefault(_ value: Value) -> String? {
        switch value {
        case .int(let i): return String(i)
        case .double(let d): return formatNumber(d)
        case .decimal(let d): return d.description
        case .string(let s): return s
        case .bool(let b): return b ? "YES" : "NO"
        case .uuid(let u): return u.uuidString
        case .url(let u): return u.absoluteString
        default: return nil
        }
    }

    /// A number without a needless `.0` (`5`, `0.5`, `-725882400`), read back exactly.
    static func formatNumber(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    // MARK: Bounds as validation predicates

    /// The validation predicates and warnings (Core Data's error codes) for a minimum, a maximum and a
    /// regular expression, as Xcode's model compiler makes them: `SELF >= min` for numbers and dates,
    /// `length >= min` for strings and data, `SELF MATCHES pattern`.
    static func validation(kind: BoundKind, minimum: Value?, maximum: Value?, pattern: String?) -> (predicates: [NSPredicate], codes: [Int]) {
        var predicates: [NSPredicate] = [], codes: [Int] = []
        let subject: ExpressionNode = kind == .length ? .keyPath("length") : .evaluatedObject
        if let minimum {
            predicates.append(NSPredicate(node: .comparison(ComparisonNode(subject, .greaterThanOrEqualTo, .constant(minimum)))))
            codes.append(kind == .number ? NSValidationNumberTooSmallError : kind == .date ? NSValidationDateTooSoonError : NSValidationStringTooShortError)
        }
        if let maximum {
            predicates.append(NSPredicate(node: .comparison(ComparisonNode(subject, .lessThanOrEqualTo, .constant(maximum)))))
            codes.append(kind == .number ? NSValidationNumberTooLargeError : kind == .date ? NSValidationDateTooLateError : NSValidationStringTooLongError)
        }
        if let pattern {
            predicates.append(NSPredicate(node: .comparison(ComparisonNode(.evaluatedObject, .matches, .constant(.string(pattern))))))
            codes.append(NSValidationStringPatternMatchingError)
        }
        return (predicates, codes)
    }

    /// The minimum, maximum and pattern behind a property's validation predicates, or a description of
    /// the first predicate a model file cannot express.
    static func bounds(of predicates: [NSPredicate], kind: BoundKind?) -> Result<(minimum: Value?, maximum: Value?, pattern: String?), BoundError> {
        var minimum: Value?, maximum: Value?, pattern: String?
        for predicate in predicates {
            guard case .comparison(let c) = predicate.node, c.modifier == .direct, c.options.isEmpty,
                  case .constant(let value) = c.right else {
                return .failure(BoundError(predicate: predicate))
            }
            switch (c.left, c.op, value) {
            case (.evaluatedObject, .matches, .string(let text)) where pattern == nil && kind == .length:
                pattern = text
            case (.evaluatedObject, .greaterThanOrEqualTo, _) where minimum == nil && (kind == .number || kind == .date),
                 (.keyPath("length"), .greaterThanOrEqualTo, .int) where minimum == nil && kind == .length:
                minimum = value
            case (.evaluatedObject, .lessThanOrEqualTo, _) where maximum == nil && (kind == .number || kind == .date),
                 (.keyPath("length"), .lessThanOrEqualTo, .int) where maximum == nil && kind == .length:
                maximum = value
            default:
                return .failure(BoundError(predicate: predicate))
            }
            if kind == .date, case .comparison = predicate.node, value.dateValue == nil, c.op != .matches {
                return .failure(BoundError(predicate: predicate))
            }
            if kind == .number, value.doubleValue == nil {
                return .failure(BoundError(predicate: predicate))
            }
        }
        return .success((minimum, maximum, pattern))
    }

    struct BoundError: Error {
        let predicate: NSPredicate
    }
}

extension Value {
    /// The date of a `.date` value.
    var dateValue: Date? {
        if case .date(let d) = self { return d }
        return nil
    }
}

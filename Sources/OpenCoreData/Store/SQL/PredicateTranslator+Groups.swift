import Foundation

extension PredicateTranslator {
    /// The SQL aggregate of each function an `NSExpressionDescription` of a dictionary fetch may apply.
    static let aggregateFunctions: [String: SQLFunction] = ["sum:": .sum, "min:": .min, "max:": .max, "average:": .average, "count:": .count]

    /// A dictionary fetch's column as a value of the row (or of the group, for an aggregate): an
    /// attribute's column, joined through to-ones; a to-one's key; `SUM(…)`, `COUNT(…)`, ….
    mutating func operand(of column: DictionaryColumns.Column) throws -> Operand {
        switch column {
        case .keyPath(let path), .object(let path):
            return try value(of: path, scope: 0)
        case .aggregate(let name, let path, _):
            guard let function = Self.aggregateFunctions[name] else { throw unsupported("the aggregate \(name)") }
            let v = try value(of: path, scope: 0)
            let kind: ValueKind? = function == .min || function == .max ? v.kind : .number
            return Operand(expression: .function(function, [v.expression]), kind: kind, nullable: function != .count)
        }
    }

    /// The `HAVING` condition of a grouped dictionary fetch: its predicate, where each key path or
    /// variable is the column it names (checked by ``HavingPredicate``); values bound as everywhere.
    mutating func havingCondition(_ having: DictionaryColumns.Having) throws -> SQLExpression {
        groupColumns = having.names
        defer { groupColumns = nil }
        return try condition(having.predicate)
    }

    /// In a `HAVING` condition, what `name` (a key path or a variable) stands for; `nil` elsewhere.
    mutating func groupOperand(_ name: String) throws -> Operand? {
        guard let groupColumns else { return nil }
        guard let column = groupColumns[name] else {
            throw CoreDataError(NSCoreDataError, "keypath \(name) in the havingPredicate of a fetch of entity \(entityName) is neither grouped nor fetched",
                                userInfo: [NSValidationKeyErrorKey: name])
        }
        return try operand(of: column)
    }
}

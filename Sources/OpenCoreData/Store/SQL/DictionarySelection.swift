import Foundation

/// What a dictionary-result fetch selects, the same for every SQL store: each column's SQL (a value
/// joined through to-ones, a to-one's key and, when its destination has subentities, entity column, or an
/// aggregate), the groups and the `HAVING` condition.
extension DictionaryColumns {
    /// The fetch's selection, for ``SQLSelect/init(fetching:_:limited:)``.
    var selection: FetchSelection {
        .dictionaries(distinct: distinct) { translator in
            let columns = try self.columns.flatMap { try $0.expressions(&translator) }
            let groups = try groupBy.map { try $0.flatMap { try $0.expressions(&translator) } }
            return (columns, groups, try having.map { try translator.havingCondition($0) })
        }
    }

    /// How many result columns each column takes: 2 for a to-one whose destination has subentities (its
    /// key and entity number), else 1.
    var widths: [Int] {
        columns.map { column in
            if case .object(let path) = column, path.entityColumn != nil { return 2 }
            return 1
        }
    }
}

extension DictionaryColumns.Column {
    /// The SQL of the column: its value (joined through to-ones), a to-one's key and entity column, or an
    /// aggregate of a value.
    func expressions(_ translator: inout PredicateTranslator) throws -> [SQLExpression] {
        switch self {
        case .keyPath, .aggregate:
            return [try translator.operand(of: self).expression]
        case .object(let path):
            let key = try translator.value(of: path, scope: 0).expression
            guard let entityColumn = path.entityColumn else { return [key] }
            let alias = translator.alias(through: path.hops.dropLast(), scope: 0)
            return [key, .column(alias: alias, name: entityColumn)]
        }
    }
}

extension ResolvedKeyPath {
    /// The entity column of the last hop, a to-one whose destination has subentities.
    var entityColumn: String? {
        guard case .foreignKey(_, let entityColumn) = hops.last?.relationship.storage else { return nil }
        return entityColumn
    }
}

import Foundation

extension SQLiteStore {
    /// A dictionary-result fetch: the selected columns (attributes, through to-one relationships if any;
    /// to-one relationships as keys; aggregates), `DISTINCT`, `GROUP BY` and `HAVING` as asked, each row's values
    /// in column order (a to-one relationship's as an ``ObjectRef`` value) handed to `row` in one buffer
    /// reused for every row, so that a row costs no array of its own.
    func fetchColumns(_ plan: FetchPlan, _ request: DictionaryColumns, in scope: StoreReadScope, row body: ([Value]) throws -> Void) throws {
        // A to-one whose destination has subentities reads its entity column too.
        let widths = request.columns.map { column -> Int32 in
            if case .object(let path) = column, Self.entityColumn(path) != nil { return 2 }
            return 1
        }
        let (sql, arguments) = try columnsSQL(plan, request)
        var values: [Value] = []
        values.reserveCapacity(request.columns.count)
        try wrap {
            try read(in: scope.snapshot) { db in try db.query(sql, arguments) { row in
                values.removeAll(keepingCapacity: true)
                var position: Int32 = 0
                for (i, column) in request.columns.enumerated() {
                    switch column {
                    case .keyPath(let path):
                        values.append(row.value(position, as: path.attributeType ?? .undefinedAttributeType))
                    case .object(let path):
                        guard !row.isNull(position) else { values.append(.null); break }
                        let destination = path.hops.last!.destination.layout!
                        let entity = widths[i] == 2 && !row.isNull(position + 1) ? Int(row.int64(position + 1)) : destination.entityID
                        values.append(ObjectRef(key: .permanent(root: destination.rootEntityID, pk: row.int64(position)), entityID: entity).value)
                    case .aggregate(_, _, let type):
                        values.append(type == .undefinedAttributeType ? row.dynamicValue(position) : row.value(position, as: type))
                    }
                    position += widths[i]
                }
                try body(values)
            } }
        }
    }

    /// The `SELECT` of a dictionary-result fetch.
    func columnsSQL(_ plan: FetchPlan, _ request: DictionaryColumns) throws -> (String, [Value]) {
        try selectSQL(plan, .dictionaries(distinct: request.distinct) { translator in
            let columns = try request.columns.flatMap { try Self.expressions($0, &translator) }
            let groups = try request.groupBy.map { try $0.flatMap { try Self.expressions($0, &translator) } }
            return (columns, groups, try request.having.map { try translator.havingCondition($0) })
        }, limited: true)
    }

    /// The SQL of a column: its value (joined through to-ones), a to-one's key and entity column, or an
    /// aggregate of a value.
    static func expressions(_ column: DictionaryColumns.Column, _ translator: inout PredicateTranslator) throws -> [SQLExpression] {
        switch column {
        case .keyPath, .aggregate:
            return [try translator.operand(of: column).expression]
        case .object(let path):
            let key = try translator.value(of: path, scope: 0).expression
            guard let entityColumn = entityColumn(path) else { return [key] }
            let alias = translator.alias(through: path.hops.dropLast(), scope: 0)
            return [key, .column(alias: alias, name: entityColumn)]
        }
    }

    /// The entity column of a key path's last hop, a to-one whose destination has subentities.
    static func entityColumn(_ path: ResolvedKeyPath) -> String? {
        guard case .foreignKey(_, let entityColumn) = path.hops.last?.relationship.storage else { return nil }
        return entityColumn
    }
}

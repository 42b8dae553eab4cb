import Foundation

extension SQLiteStore {
    /// A dictionary-result fetch: the selected columns (attributes or aggregates), `DISTINCT` and
    /// `GROUP BY` as asked, each row's values in column order.
    func fetchColumns(_ plan: FetchPlan, _ request: DictionaryColumns) throws -> [[Value]] {
        let layout = plan.layout
        let aggregates = ["sum:": "SUM", "min:": "MIN", "max:": "MAX", "average:": "AVG", "count:": "COUNT"]
        let list = try request.columns.map { column -> String in
            switch column {
            case .attribute(let slot): return "t0.\(layout.columns[slot]!)"
            case .aggregate(let function, let slot, _):
                guard let sql = aggregates[function] else {
                    throw CoreDataError(NSCoreDataError, "unsupported function \(function) in propertiesToFetch of \(plan.entity.name ?? "?")")
                }
                return "\(sql)(t0.\(layout.columns[slot]!))"
            }
        }.joined(separator: ", ")
        let group = request.groupBy.map { $0.map { "t0.\(layout.columns[$0]!)" }.joined(separator: ", ") }
        let (sql, arguments) = try selectSQL(plan, columns: list, limited: true, distinct: request.distinct, groupBy: group)
        var rows: [[Value]] = []
        try wrap {
            try read { db in try db.query(sql, arguments) { row in
                var values: [Value] = []
                values.reserveCapacity(request.columns.count)
                for (i, column) in request.columns.enumerated() {
                    switch column {
                    case .attribute(let slot): values.append(row.value(Int32(i), as: layout.kinds[slot].attributeType ?? .integer64AttributeType))
                    case .aggregate(_, _, let type):
                        values.append(type == .undefinedAttributeType ? row.dynamicValue(Int32(i)) : row.value(Int32(i), as: type))
                    }
                }
                rows.append(values)
            } }
        }
        return rows
    }
}

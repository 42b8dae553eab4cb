import Foundation

extension SQLiteStore {
    /// A dictionary-result fetch: the selected columns (attributes, through to-one relationships if any;
    /// to-one relationships as keys; aggregates), `DISTINCT`, `GROUP BY` and `HAVING` as asked, each row's values
    /// in column order (a to-one relationship's as an ``ObjectRef`` value) handed to `row` in one buffer
    /// reused for every row, so that a row costs no array of its own.
    func fetchColumns(_ plan: FetchPlan, _ request: DictionaryColumns, in scope: StoreReadScope, row body: ([Value]) throws -> Void) throws {
        // A to-one whose destination has subentities reads its entity column too.
        let widths = request.widths.map(Int32.init)
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
        try selectSQL(plan, request.selection, limited: true)
    }
}

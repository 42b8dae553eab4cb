import Foundation
@testable import OpenCoreData

extension SQLiteStore {
    /// The `SELECT` of a fetch of objects reading the columns written out in `columns`
    /// (`"t0.Z_PK, t0.Z_ENT"`), for tests that assert the SQL of key-only fetches.
    func selectSQL(_ plan: FetchPlan, columns: String, limited: Bool) throws -> (String, [Value]) {
        let list = columns.split(separator: ",").map { column -> SQLExpression in
            let parts = column.trimmingCharacters(in: .whitespaces).split(separator: ".").map(String.init)
            return .column(alias: parts[0], name: parts[1])
        }
        return try selectSQL(plan, .objects(list), limited: limited)
    }
}

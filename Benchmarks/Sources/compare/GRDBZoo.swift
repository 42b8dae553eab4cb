import Foundation
import GRDB

/// GRDB's record for figure 10, decoded by column index.
struct GRDBAnimal: FetchableRecord {
    /// `ZCOMMONNAME`.
    var name: String
    /// `ZCLASSIFICATION`.
    var classificationKey: Int64?

    init(row: Row) {
        name = row[0]
        classificationKey = row[1]
    }
}

extension GRDBDatabase {
    /// `GRDBAnimal.fetchAll` for `sql` (no arguments).
    func fetchAnimals(_ sql: String) throws -> [GRDBAnimal] {
        try queue.read { db in try GRDBAnimal.fetchAll(db, sql: sql) }
    }

    /// Figure 12: one cached statement run once per owner with `Int64.fetchAll`.
    func membersOfEach(_ owners: [Int64]) throws -> [[Int64]] {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: ZooSQL.animalsOfClassification)
            return try owners.map { try Int64.fetchAll(statement, arguments: [$0]) }
        }
    }
}

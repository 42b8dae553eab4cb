import CSQLiteBench
import Foundation

/// What the raw baseline builds for an animal row: its name and its classification's key, and the
/// classification once figure 11 has read it.
final class RawAnimal {
    /// `ZCOMMONNAME`.
    let name: String
    /// `ZCLASSIFICATION` (0 for none).
    let classificationKey: Int64
    /// The classification, when read.
    var classification: RawClassification?

    init(name: String, classificationKey: Int64) {
        self.name = name
        self.classificationKey = classificationKey
    }
}

/// What the raw baseline builds for a classification row.
final class RawClassification {
    /// `ZORDER`.
    let order: String
    /// `ZFAMILY`.
    let family: String

    init(order: String, family: String) {
        self.order = order
        self.family = family
    }
}

extension RawDatabase {
    /// Runs `sql` (no arguments) and builds a ``RawAnimal`` from columns 0 (name) and 1 (classification key).
    func fetchAnimals(_ sql: String) throws -> [RawAnimal] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        var animals: [RawAnimal] = []
        while try step(statement, sql) {
            let name = sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
            animals.append(RawAnimal(name: name, classificationKey: sqlite3_column_int64(statement, 1)))
        }
        return animals
    }

    /// Figure 11 by hand: the animals, then their classifications in one query (the distinct keys as one
    /// JSON array), each animal linked to its classification.
    func fetchAnimalsWithClassifications() throws -> [RawAnimal] {
        let animals = try fetchAnimals(ZooSQL.animals)
        var keys = Set<Int64>()
        for animal in animals where animal.classificationKey != 0 { keys.insert(animal.classificationKey) }
        let json = "[" + keys.map(String.init).joined(separator: ",") + "]"
        let statement = try prepare(ZooSQL.classificationsByKey)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, json, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        var classifications: [Int64: RawClassification] = [:]
        classifications.reserveCapacity(keys.count)
        while try step(statement, ZooSQL.classificationsByKey) {
            let order = sqlite3_column_text(statement, 1).map { String(cString: $0) } ?? ""
            let family = sqlite3_column_text(statement, 2).map { String(cString: $0) } ?? ""
            classifications[sqlite3_column_int64(statement, 0)] = RawClassification(order: order, family: family)
        }
        for animal in animals { animal.classification = classifications[animal.classificationKey] }
        return animals
    }

    /// Figure 11's floor: the library's second query by hand, for the classification keys the animals
    /// name (read before, untimed): the keys sorted and made unique, then their rows into objects, read
    /// as the library reads them: the range of keys when at least 256 fill a quarter of it or more, else
    /// the keys as one JSON array.
    func classifications(named keys: [Int64]) throws -> [RawClassification] {
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for key in keys.filter({ $0 != 0 }).sorted() where key != unique.last { unique.append(key) }
        guard let low = unique.first, let high = unique.last else { return [] }
        let dense = unique.count >= 256 && high - low < Int64(unique.count) * 4
        let sql = dense ? ZooSQL.classificationsInRange : ZooSQL.classificationsByKey
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        if dense {
            sqlite3_bind_int64(statement, 1, low)
            sqlite3_bind_int64(statement, 2, high)
        } else {
            let json = "[" + unique.map(String.init).joined(separator: ",") + "]"
            sqlite3_bind_text(statement, 1, json, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
        var classifications: [RawClassification] = []
        classifications.reserveCapacity(unique.count)
        var i = 0
        while try step(statement, sql) {
            if dense {
                // Rows in key order: skip those no animal names.
                let key = sqlite3_column_int64(statement, 0)
                while i < unique.count, unique[i] < key { i += 1 }
                guard i < unique.count, unique[i] == key else { continue }
            }
            let order = sqlite3_column_text(statement, 1).map { String(cString: $0) } ?? ""
            let family = sqlite3_column_text(statement, 2).map { String(cString: $0) } ?? ""
            classifications.append(RawClassification(order: order, family: family))
        }
        return classifications
    }

    /// Figure 12 by hand: one prepared statement run once per owner (bind, step, reset), collecting the
    /// member keys of each.
    func membersOfEach(_ owners: [Int64]) throws -> [[Int64]] {
        let statement = try prepare(ZooSQL.animalsOfClassification)
        defer { sqlite3_finalize(statement) }
        var result: [[Int64]] = []
        result.reserveCapacity(owners.count)
        for owner in owners {
            sqlite3_bind_int64(statement, 1, owner)
            var members: [Int64] = []
            while try step(statement, ZooSQL.animalsOfClassification) { members.append(sqlite3_column_int64(statement, 0)) }
            sqlite3_reset(statement)
            result.append(members)
        }
        return result
    }

    /// Steps a statement: true for a row, false when done.
    private func step(_ statement: OpaquePointer, _ sql: String) throws -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        guard rc == SQLITE_DONE else { throw error(sql) }
        return false
    }
}

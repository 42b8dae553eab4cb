import Foundation
import OpenCoreData

/// What a Core Data SQLite store file holds, read from SQLite alone (no model needed): the file's header,
/// the metadata row (`Z_METADATA`: `Z_VERSION`, `Z_UUID`, the `Z_PLIST` property list), the entities
/// (`Z_PRIMARYKEY`) with their row counts, and every table's row count. Read-only: the file is opened
/// with `SQLITE_OPEN_READONLY` and never written.
package struct StoreSummary {
    /// One row of `Z_PRIMARYKEY`, with the entity's table and the rows it has there.
    package struct Entity: Equatable, Sendable {
        package let number: Int64, name: String, superNumber: Int64, max: Int64
        /// `Z` + the root entity's name in capitals (nil when that table is missing).
        package let table: String?
        /// Rows of this entity (`Z_ENT` = its number) in its table; nil when the table is missing or unreadable.
        package let rows: Int64?
    }

    package let path: String
    package let file: SQLiteFileFacts
    /// `Z_METADATA.Z_VERSION` and `Z_UUID` (nil when the table has no row).
    package let metadataVersion: Int64?
    package let uuid: String?
    /// The decoded `Z_PLIST` (empty when it is missing or unreadable; ``problems`` says which).
    package let metadata: [String: Any]
    /// How `Z_PLIST` is encoded: "binary property list", "XML property list", or OpenCoreData's JSON.
    package let metadataFormat: String
    package let entities: [Entity]
    /// Every table but SQLite's own, with its row count, in name order.
    package let tables: [(name: String, rows: Int64)]
    /// What is wrong with the store (each a sentence); empty for a sound store.
    package let problems: [String]

    /// The entity version hashes the metadata records (`NSStoreModelVersionHashes`), by entity name.
    package var entityVersionHashes: [String: Data]? { metadata[NSStoreModelVersionHashesKey] as? [String: Data] }

    /// Reads the store at `path`; throws when it is not a readable Core Data store.
    package init(path: String) throws(InspectorError) {
        self.path = path
        file = try SQLiteFileFacts(path: path)
        let db = try ReadOnlyDatabase(path: path)
        let tableNames = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .compactMap { $0.first?.text }
        guard tableNames.contains("Z_METADATA") else {
            let list = tableNames.isEmpty ? "it has no tables" : "its tables: " + tableNames.joined(separator: ", ")
            throw .storeFile(path, "it is a SQLite database but not a Core Data store: there is no Z_METADATA table (\(list))")
        }
        var problems: [String] = []
        if db.walIgnored {
            problems.append("The -wal file could not be read (SQLite cannot use a -shm index in this folder): rows in it are not shown. Copy the store, -wal and -shm to a writable folder.")
        }
        let row = try db.rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1").first
        metadataVersion = row?[0].integer
        uuid = row?[1].text
        (metadata, metadataFormat) = Self.decode(row?[2].blob, problems: &problems)
        if row == nil { problems.append("Z_METADATA has no row.") }
        tables = try tableNames.map { name throws(InspectorError) in
            (name, try db.rows("SELECT count(*) FROM \(ReadOnlyDatabase.quoted(name))").first?.first?.integer ?? 0)
        }
        entities = try Self.entities(db, tables: Set(tableNames), problems: &problems)
        self.problems = problems
    }

    /// The metadata property list: Core Data's (binary or XML), or the JSON that OpenCoreData wrote before
    /// it wrote Core Data's format (given under the keys `NSPersistentStore.metadata` used then).
    private static func decode(_ plist: Data?, problems: inout [String]) -> ([String: Any], String) {
        guard let plist else {
            problems.append("Z_METADATA has no Z_PLIST: the store's metadata is missing.")
            return ([:], "none")
        }
        var format = PropertyListSerialization.PropertyListFormat.binary
        if let dictionary = try? PropertyListSerialization.propertyList(from: plist, format: &format) as? [String: Any] {
            return (dictionary, format == .binary ? "binary property list" : "XML property list")
        }
        if let json = try? JSONSerialization.jsonObject(with: plist) as? [String: String],
           let uuid = json["storeUUID"], let type = json["storeType"], let hash = json["versionHash"] {
            return ([NSStoreUUIDKey: uuid, NSStoreTypeKey: type, "NSStoreModelVersionHash": hash],
                    "JSON (written by OpenCoreData before it wrote Core Data's property list)")
        }
        problems.append("Z_METADATA.Z_PLIST (\(plist.count) bytes) is not a property list: the store's metadata is unreadable.")
        return ([:], "unreadable")
    }

    /// `Z_PRIMARYKEY`'s rows, each with its table and row count; a root entity whose table holds a key above
    /// its `Z_MAX` is a problem (Core Data would hand that key out again).
    private static func entities(_ db: ReadOnlyDatabase, tables: Set<String>, problems: inout [String]) throws(InspectorError) -> [Entity] {
        guard tables.contains("Z_PRIMARYKEY") else {
            problems.append("There is no Z_PRIMARYKEY table: the store's entities and keys are unknown.")
            return []
        }
        let rows = try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        let names = Dictionary(rows.map { ($0[0].integer ?? 0, ($0[1].text ?? "", $0[2].integer ?? 0)) }, uniquingKeysWith: { a, _ in a })
        func root(_ number: Int64) -> String {
            var current = number, seen: Set<Int64> = []
            while let (_, parent) = names[current], parent != 0, names[parent] != nil, seen.insert(current).inserted { current = parent }
            return names[current]?.0 ?? ""
        }
        var result: [Entity] = []
        for row in rows {
            let number = row[0].integer ?? 0, name = row[1].text ?? "", parent = row[2].integer ?? 0, max = row[3].integer ?? 0
            let table = "Z" + root(number).uppercased()
            guard tables.contains(table) else {
                problems.append("Entity \(name) (Z_ENT \(number)) has no table \(table).")
                result.append(Entity(number: number, name: name, superNumber: parent, max: max, table: nil, rows: nil))
                continue
            }
            let quoted = ReadOnlyDatabase.quoted(table)
            var count: Int64?
            do {
                count = try db.rows("SELECT count(*) FROM \(quoted) WHERE Z_ENT = ?", [.integer(number)]).first?.first?.integer
                if parent == 0, let largest = try db.rows("SELECT max(Z_PK) FROM \(quoted)").first?.first?.integer, largest > max {
                    problems.append("\(table) holds Z_PK \(largest), above \(name)'s Z_MAX \(max) in Z_PRIMARYKEY: new objects would reuse keys.")
                }
            } catch {
                problems.append("\(table) cannot be read as \(name)'s table (Core Data's Z_PK and Z_ENT columns): \(error.reason)")
            }
            result.append(Entity(number: number, name: name, superNumber: parent, max: max, table: table, rows: count))
        }
        return result
    }
}

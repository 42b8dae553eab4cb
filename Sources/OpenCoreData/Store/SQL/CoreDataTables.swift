import Foundation

/// The tables Core Data keeps beside the entities' (docs/StoreFormat.md), as values any SQL store prints:
/// `Z_PRIMARYKEY` (each entity's number, name, superentity and the last key given), `Z_METADATA` (the
/// store's UUID and metadata property list), and the writes that fill and advance them.
enum CoreDataTables {
    /// `CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)`.
    static var primaryKey: SQLSchemaChange {
        .createTable(SQLCreateTable(
        name: "Z_PRIMARYKEY",
        columns: [.init("Z_ENT", .integer, primaryKey: true), .init("Z_NAME", .varchar(length: nil)),
                  .init("Z_SUPER", .integer), .init("Z_MAX", .integer)],
        padded: false))
    }

    /// `CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)`.
    static var metadata: SQLSchemaChange {
        .createTable(SQLCreateTable(
        name: "Z_METADATA",
        columns: [.init("Z_VERSION", .integer, primaryKey: true), .init("Z_UUID", .varchar(length: 255)), .init("Z_PLIST", .blob)],
        padded: false))
    }

    /// The rows of a new store: one `Z_PRIMARYKEY` row per entity (its count of keys at 0) and the
    /// `Z_METADATA` row (version 1).
    static func rows(_ model: NSManagedObjectModel, uuid: String, metadata: Data) -> [SQLWrite] {
        let entities = model.entities.sorted { $0.layout.entityID < $1.layout.entityID }
        return entities.map { e in
            primaryKeyRow(entity: e.layout.entityID, name: e.name ?? "", superentity: e.superentity?.layout.entityID ?? 0)
        } + [.insert(SQLInsert(into: "Z_METADATA", columns: ["Z_VERSION", "Z_UUID", "Z_PLIST"],
                               rows: [[.integer(1), .parameter(.string(uuid)), .parameter(.data(metadata))]]))]
    }

    /// The `Z_PRIMARYKEY` row of an entity (or of history's tables), its last key given `max`.
    static func primaryKeyRow(entity: Int, name: String, superentity: Int, max: Int64 = 0,
                              conflict: SQLInsert.Conflict = .fail) -> SQLWrite {
        .insert(SQLInsert(into: "Z_PRIMARYKEY", columns: ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"],
                          rows: [[.parameter(.int(Int64(entity))), .parameter(.string(name)), .parameter(.int(Int64(superentity))),
                                  .parameter(.int(max))]], conflict: conflict))
    }

    /// `UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?`: the last key given for a hierarchy.
    static func advanceKeys(root: Int, to max: Int64) -> SQLWrite {
        .update(SQLUpdate(table: "Z_PRIMARYKEY", assignments: [SQLAssignment("Z_MAX", .parameter(.int(max)))],
                          conditions: [.equals("Z_ENT", .parameter(.int(Int64(root))))]))
    }

    /// `UPDATE Z_METADATA SET Z_PLIST = ?[, Z_UUID = ?] WHERE Z_VERSION = 1`.
    static func writeMetadata(_ plist: Data, uuid: String? = nil) -> SQLWrite {
        var assignments = [SQLAssignment("Z_PLIST", .parameter(.data(plist)))]
        if let uuid { assignments.append(SQLAssignment("Z_UUID", .parameter(.string(uuid)))) }
        return .update(SQLUpdate(table: "Z_METADATA", assignments: assignments, conditions: [.equals("Z_VERSION", .integer(1))]))
    }

    /// `DELETE FROM Z_PRIMARYKEY` (before its rows are written again, after a migration).
    static var clearPrimaryKeys: SQLWrite { .delete(SQLDelete(table: "Z_PRIMARYKEY")) }
}

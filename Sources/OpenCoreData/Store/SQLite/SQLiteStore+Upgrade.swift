import Foundation

/// A store written by OpenCoreData before it followed Core Data's format: its `Z_PLIST` is JSON
/// (`storeUUID`, `storeType`, `versionHash`: our own model hash), it has our table `Z_OCDGENERATION`, and
/// it numbered entities in name order (Core Data numbers each root's subentities right after it), named a
/// to-one's entity column after its source entity's number and gave a many-to-many's join table to the
/// side whose entity name sorts first. ``upgrade(_:model:tables:)`` rewrites it as Core Data's, once, in
/// one transaction.
struct LegacyStore {
    let uuid: String
    /// Entity numbers, table and column names differ from Core Data's for this model.
    let needsRenumbering: Bool
    let oldNumbers: [ObjectIdentifier: Int]

    private struct Metadata: Decodable {
        var storeUUID: String
        var storeType: String
        var versionHash: String
    }

    /// The legacy metadata, checked against the model (`NSPersistentStoreIncompatibleVersionHashError`
    /// with our old model hash); `nil` for any other store.
    static func read(_ db: SQLiteConnection, model: NSManagedObjectModel) throws -> LegacyStore? {
        guard let row = try StoreMetadata.row(db), let data = row.plist, data.first == UInt8(ascii: "{"),
              let old = try? JSONDecoder().decode(Metadata.self, from: data) else { return nil }
        guard old.versionHash == model.versionHash else {
            throw CoreDataError(NSPersistentStoreIncompatibleVersionHashError,
                                "The model used to open the store is incompatible with the one used to create the store at \(db.path) (written by an earlier OpenCoreData: store model hash \(old.versionHash), this model \(model.versionHash)); it was left untouched.",
                                userInfo: [NSFilePathErrorKey: db.path, "NSStoreModelVersionHash": old.versionHash])
        }
        let sorted = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        var numbers: [ObjectIdentifier: Int] = [:]
        for (i, e) in sorted.enumerated() { numbers[ObjectIdentifier(e)] = i + 1 }
        var store = LegacyStore(uuid: old.storeUUID, needsRenumbering: false, oldNumbers: numbers)
        let differs = model.entities.contains { numbers[ObjectIdentifier($0)] != $0.layout.entityID }
            || !store.renamedEntityColumns(model).isEmpty || !store.changedJoinTables(model).isEmpty
        store = LegacyStore(uuid: old.storeUUID, needsRenumbering: differs, oldNumbers: numbers)
        return store
    }

    private func old(_ e: NSEntityDescription) -> Int { oldNumbers[ObjectIdentifier(e)]! }

    /// To-ones whose entity column had another name: (table, old name, new name).
    func renamedEntityColumns(_ model: NSManagedObjectModel) -> [(table: String, old: String, new: String)] {
        var result: [(String, String, String)] = []
        for e in model.entities {
            for slot in e.layout.relationshipSlots where e.layout.properties[slot].entity === e {
                guard case .toOne(let r) = e.layout.kinds[slot], case .foreignKey(_, let column?) = r.storage else { continue }
                let before = "Z\(old(e))_\(r.relationship.name.uppercased())"
                if before != column { result.append((e.layout.tableName, before, column)) }
            }
        }
        return result
    }

    /// A join table as the earlier version named it: (name, owner column, member column, order column,
    /// owner relationship).
    private func oldJoinTable(_ r: NSRelationshipDescription) -> (name: String, source: String, destination: String, order: String?, owner: NSRelationshipDescription) {
        let inverse = r.inverseRelationship.flatMap { $0.isTransient ? nil : $0 }
        let isOwner = inverse.map { i in (r.entity?.name ?? "", r.name) <= (i.entity?.name ?? "", i.name) } ?? true
        let owner = isOwner ? r : inverse!
        let other = isOwner ? inverse : r
        let source = owner.entity!
        let ownerColumn = "Z_\(old(source))\((other?.name ?? source.name ?? "").uppercased())"
        var memberColumn = "Z_\(old(other?.entity ?? owner.destinationEntity!))\(owner.name.uppercased())"
        if memberColumn == ownerColumn { memberColumn += "1" }
        return ("Z_\(old(source))\(owner.name.uppercased())", ownerColumn, memberColumn,
                owner.isOrdered ? "Z_FOK_\(String(memberColumn.dropFirst(2)))" : nil, owner)
    }

    /// Join tables whose name, columns or owner changed: the new one (owner's view) and the old one.
    func changedJoinTables(_ model: NSManagedObjectModel) -> [(new: JoinTable, owner: NSRelationshipDescription, old: (name: String, source: String, destination: String, order: String?, owner: NSRelationshipDescription))] {
        var result: [(JoinTable, NSRelationshipDescription, (String, String, String, String?, NSRelationshipDescription))] = []
        for e in model.entities {
            for slot in e.layout.relationshipSlots where e.layout.properties[slot].entity === e {
                guard case .toMany(let r) = e.layout.kinds[slot], case .joinTable(let t) = r.storage, t.isOwner else { continue }
                let before = oldJoinTable(r.relationship)
                if before.name != t.name || before.source != t.sourceColumn || before.destination != t.destinationColumn
                    || before.order != t.orderColumn || t.otherOrderColumn != nil {
                    result.append((t, r.relationship, before))
                }
            }
        }
        return result
    }
}

extension SQLiteStore {
    /// Rewrites a legacy store as Core Data's inside the caller's transaction: entity numbers (`Z_ENT`,
    /// entity columns, `Z_PRIMARYKEY`), join tables, Core Data's metadata (same UUID), and no
    /// `Z_OCDGENERATION`. Column declarations and order stay as they were (Core Data reads columns by
    /// name); docs/StoreFormat.md.
    static func upgrade(_ legacy: LegacyStore, _ db: SQLiteConnection, model: NSManagedObjectModel, tables: [Int: TableInfo]) throws {
        if legacy.needsRenumbering { try renumber(legacy, db, model: model, tables: tables) }
        let plist = try StoreMetadata.encode(StoreMetadata.plist(for: model))
        try db.run(CoreDataTables.writeMetadata(plist, uuid: legacy.uuid))
        try db.execute(.dropTable("Z_OCDGENERATION", ifExists: true))
    }

    private static func renumber(_ legacy: LegacyStore, _ db: SQLiteConnection, model: NSManagedObjectModel, tables: [Int: TableInfo]) throws {
        let pairs = model.entities.map { (old: legacy.oldNumbers[ObjectIdentifier($0)]!, new: $0.layout.entityID) }
        let cases = pairs.map { "WHEN \($0.old) THEN \($0.new)" }.joined(separator: " ")
        for table in tables.values {
            try db.execute("UPDATE \(table.name) SET Z_ENT = CASE Z_ENT \(cases) ELSE Z_ENT END")
        }
        for (table, old, new) in legacy.renamedEntityColumns(model) {
            try db.execute("ALTER TABLE \(table) RENAME COLUMN \(old) TO \(new)")
            try db.execute("UPDATE \(table) SET \(new) = CASE \(new) \(cases) ELSE \(new) END")
        }
        for (join, owner, old) in legacy.changedJoinTables(model) {
            let moved = old.name + "_OCDUPGRADE"
            try db.execute("ALTER TABLE \(old.name) RENAME TO \(moved)")
            try db.execute(.dropIndex("\(old.name)_\(old.destination)_INDEX", ifExists: true))
            try db.execute(join.createTable)
            try db.execute(join.index)
            let sameOwner = old.owner === owner
            var columns = [join.sourceColumn, join.destinationColumn]
            var values = sameOwner ? [old.source, old.destination] : [old.destination, old.source]
            if let order = old.order, let target = sameOwner ? join.orderColumn : join.otherOrderColumn {
                columns.append(target)
                values.append(order)
            }
            try db.execute("INSERT INTO \(join.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(moved)")
            try db.execute(.dropTable(moved))
        }
        var maxima: [String: Int64] = [:]
        try db.query("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY") { row in
            if case .string(let name) = row.value(0, as: .stringAttributeType) { maxima[name] = row.int64(1) }
        }
        try db.run(CoreDataTables.clearPrimaryKeys)
        for e in model.entities {
            try db.run(CoreDataTables.primaryKeyRow(entity: e.layout.entityID, name: e.name ?? "", superentity: e.superentity?.layout.entityID ?? 0,
                                                    max: maxima[e.name ?? ""] ?? 0))
        }
    }
}

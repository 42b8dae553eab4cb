import Foundation

extension SQLiteStore {
    /// Writes what a row's to-many relationships keep outside its own table, inside the save's
    /// transaction: join-table rows (the owner side writes them) and the order column of ordered to-manys.
    /// `old` is what the object read (`nil` for a new row); a to-many not read then is read now.
    func writeRelationships(_ layout: EntityLayout, pk: Int64, values: [Value], old: [Value]?, keys: KeyResolver, _ db: SQLiteConnection) throws {
        for slot in layout.relationshipSlots {
            guard case .toMany(let r) = layout.kinds[slot] else { continue }
            let new = values[slot]
            guard !new.isToManyFault else { continue }
            if let old, old[slot] == new { continue }
            switch r.storage {
            case .joinTable(let join) where join.isOwner || join.orderColumn != nil:
                try writeJoinRows(join, r, layout: layout, slot: slot, pk: pk, new: new, old: old, keys: keys, db)
            case .inverseForeignKey(_, let order?):
                // The members' foreign keys are written by their own rows; their positions here.
                let table = tables[r.destination.layout.rootEntityID]!
                let sql = SQLitePrinter.text(.update(SQLUpdate(table: table.name, assignments: [SQLAssignment(order)], conditions: [.equals("Z_PK")])))
                for (i, ref) in new.objectRefs.enumerated() {
                    let member = try keys.primaryKey(ref, layout: layout, slot: slot)
                    try db.run(sql, [.int(Int64(i + 1)), .int(member)])
                }
            default:
                continue
            }
        }
    }

    /// One side's rows of a join table: the owner removes the pairs it no longer has and adds the new
    /// ones; an ordered side (owner or not) writes its members' positions into its order column, adding
    /// a pair the owner has not written yet (the other side's order column is left as it is).
    private func writeJoinRows(_ join: JoinTable, _ r: RelationshipLayout, layout: EntityLayout, slot: Int, pk: Int64,
                               new: Value, old: [Value]?, keys: KeyResolver, _ db: SQLiteConnection) throws {
        let members = try new.objectRefs.map { try keys.primaryKey($0, layout: layout, slot: slot) }
        if join.isOwner {
            let before: [ObjectRef]
            if let old, !old[slot].isToManyFault {
                before = old[slot].objectRefs
            } else if old == nil {
                before = []
            } else {
                before = try loadRelationship(r, owners: [pk], db)[pk] ?? []
            }
            let previous = Set(try before.map { try keys.primaryKey($0, layout: layout, slot: slot) })
            try deleteJoinRows(join, owner: pk, members: previous.subtracting(members).sorted(), db)
            if join.orderColumn == nil {
                let add = SQLitePrinter.text(.insert(SQLInsert(into: join.name, columns: [join.sourceColumn, join.destinationColumn], conflict: .ignore)))
                for added in members where !previous.contains(added) {
                    try db.run(add, [.int(pk), .int(added)])
                }
                return
            }
        }
        guard let order = join.orderColumn else { return }
        let key = join.isOwner ? [join.sourceColumn, join.destinationColumn] : [join.destinationColumn, join.sourceColumn]
        let sql = SQLitePrinter.text(.insert(SQLInsert(into: join.name, columns: [join.sourceColumn, join.destinationColumn, order],
                                                       conflict: .update(key: key, columns: [order]))))
        for (i, member) in members.enumerated() {
            try db.run(sql, [.int(pk), .int(member), .int(Int64(i + 1))])
        }
    }

    /// Removes an owner's pairs with some members: one statement for one member, else one per chunk of
    /// members (``SQLiteKeyList``).
    private func deleteJoinRows(_ join: JoinTable, owner pk: Int64, members gone: [Int64], _ db: SQLiteConnection) throws {
        if gone.count == 1 {
            let remove = SQLitePrinter.text(.delete(SQLDelete(table: join.name, conditions: [.equals(join.sourceColumn), .equals(join.destinationColumn)])))
            try db.run(remove, [.int(pk), .int(gone[0])])
            return
        }
        for chunk in SQLiteKeyList(gone, json: usesJSONKeyLists).chunks {
            try db.run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) IN \(chunk.inOperand)",
                       [.int(pk)] + chunk.arguments)
        }
    }

    /// Removes deleted rows of one entity from every join table they appear in, on either side: one
    /// statement per join table, side and chunk of keys (``SQLiteKeyList``), not one per row.
    func deleteJoinRows(_ layout: EntityLayout, pks: [Int64], _ db: SQLiteConnection) throws {
        guard !pks.isEmpty, let entity = model.entity(number: layout.entityID) else { return }
        let keys = SQLiteKeyList(pks, json: usesJSONKeyLists)
        for join in joinTables {
            for column in join.columns(naming: entity) {
                for chunk in keys.chunks {
                    try db.run("DELETE FROM \(join.table.name) WHERE \(column) IN \(chunk.inOperand)", chunk.arguments)
                }
            }
        }
    }

    /// The objects a to-many relationship holds for each of some owners, in one query (see
    /// ``SQLiteKeyList``): ordered by the order column when the relationship is ordered, else by key.
    func loadRelationship(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [Int64: [ObjectRef]] {
        var result: [Int64: [ObjectRef]] = [:]
        try wrap { try read(in: scope.snapshot) { db in result = try loadRelationship(r, owners: owners, db) } }
        return result
    }

    /// The objects a to-many relationship holds for one owner: the relationship's one-owner query,
    /// whose text is made and prepared once per relationship (found by its key).
    func loadRelationship(_ r: RelationshipLayout, owner: Int64, in scope: StoreReadScope) throws -> [ObjectRef] {
        guard let members = oneOwnerMembersSQL[ObjectIdentifier(r)] else { return [] }
        var result: [ObjectRef] = []
        result.reserveCapacity(Self.membersReserved)
        try wrap { try read(in: scope.snapshot) { db in
            try db.query(members.sql, key: members.key, [.int(owner)]) { row in
                result.append(ObjectRef(key: .permanent(root: members.root, pk: row.int64(0)),
                                        entityID: members.entityColumn.map { Int(row.int64($0)) } ?? members.entity))
            }
        } }
        // A short list gives back the room it did not use (the slot keeps it for the object's life).
        if result.count * 2 < result.capacity { result = Array(result[...]) }
        return result
    }

    /// Room made for one owner's members before they are read.
    static let membersReserved = 16

    /// For each stored to-many relationship of the model, its members' query for one owner (`IN (?)`).
    static func oneOwnerMembersSQL(_ store: SQLiteStore) -> [ObjectIdentifier: MembersSQL] {
        var result: [ObjectIdentifier: MembersSQL] = [:]
        for entity in store.entities {
            for slot in entity.layout.relationshipSlots {
                guard case .toMany(let r) = entity.layout.kinds[slot], let sql = store.membersSQL(r, keyList: "(?)") else { continue }
                sql.key = SQLiteConnection.newStatementKey()
                result[ObjectIdentifier(r)] = sql
            }
        }
        return result
    }

    func loadRelationship(_ r: RelationshipLayout, owners: [Int64], _ db: SQLiteConnection) throws -> [Int64: [ObjectRef]] {
        let root = r.destination.layout.rootEntityID
        let entity = r.destination.layout.entityID
        var result: [Int64: [ObjectRef]] = [:]
        for owner in owners { result[owner] = [] }
        for chunk in SQLiteKeyList(owners, json: usesJSONKeyLists).chunks {
            guard let members = membersSQL(r, keyList: chunk.inOperand) else { return result }
            try db.query(members.sql, chunk.arguments) { row in
                result[row.int64(members.ownerColumn), default: []].append(
                    ObjectRef(key: .permanent(root: root, pk: row.int64(0)), entityID: members.entityColumn.map { Int(row.int64($0)) } ?? entity))
            }
        }
        return result
    }

    /// The `SELECT` of a to-many relationship's members (their keys) for the owners in `keyList`, in
    /// owner order, then the relationship's order (ordered) or key: each row's first column is a
    /// member's `Z_PK`. When the destination entity has subentities the member's `Z_ENT` follows;
    /// without, the query needs neither it nor the destination's table: `SELECT t0.Z_PK, t0.ZOWNER …`
    /// reads the foreign key's index alone, a many-to-many its join table alone. `nil` for a
    /// relationship that is not a stored to-many.
    func membersSQL(_ r: RelationshipLayout, keyList: String) -> MembersSQL? {
        let table = tables[r.destination.layout.rootEntityID]!
        let oneEntity = r.destination.layout.entityIDs.count == 1
        let (root, entity) = (r.destination.layout.rootEntityID, r.destination.layout.entityID)
        switch r.storage {
        case .inverseForeignKey(let column, let order):
            let rest = "FROM \(table.name) t0 WHERE t0.\(column) IN \(keyList) ORDER BY t0.\(column), \(order.map { "t0.\($0), " } ?? "")t0.Z_PK"
            return oneEntity ? MembersSQL(sql: "SELECT t0.Z_PK, t0.\(column) \(rest)", entityColumn: nil, ownerColumn: 1, root: root, entity: entity)
                : MembersSQL(sql: "SELECT t0.Z_PK, t0.Z_ENT, t0.\(column) \(rest)", entityColumn: 1, ownerColumn: 2, root: root, entity: entity)
        case .joinTable(let join):
            let (source, destination) = ("j.\(join.sourceColumn)", "j.\(join.destinationColumn)")
            let order = join.orderColumn.map { "j.\($0), " } ?? ""
            if oneEntity {
                return MembersSQL(sql: "SELECT \(destination), \(source) FROM \(join.name) j WHERE \(source) IN \(keyList) ORDER BY \(source), \(order)\(destination)",
                                  entityColumn: nil, ownerColumn: 1, root: root, entity: entity)
            }
            return MembersSQL(sql: "SELECT t0.Z_PK, t0.Z_ENT, \(source) FROM \(join.name) j JOIN \(table.name) t0 ON t0.Z_PK = \(destination) WHERE \(source) IN \(keyList) ORDER BY \(source), \(order)t0.Z_PK",
                              entityColumn: 1, ownerColumn: 2, root: root, entity: entity)
        case .foreignKey, .none:
            return nil
        }
    }

    /// The `SELECT` of a to-many relationship's members' rows (the destination table's select list) for
    /// the owners in `keyList`, in the order of ``membersSQL(_:keyList:)``, and the column that holds
    /// each row's owner key (in the select list when the inverse is a to-one, appended for a
    /// many-to-many). `nil` for a relationship that is not a stored to-many.
    func memberRowsSQL(_ r: RelationshipLayout, keyList: String) -> (sql: String, ownerColumn: Int32)? {
        let table = tables[r.destination.layout.rootEntityID]!
        switch r.storage {
        case .inverseForeignKey(let column, let order):
            let rest = "FROM \(table.name) t0 WHERE t0.\(column) IN \(keyList) ORDER BY t0.\(column), \(order.map { "t0.\($0), " } ?? "")t0.Z_PK"
            if let position = table.columns.firstIndex(where: { $0.name == column }) {
                return ("SELECT \(table.selectList) \(rest)", table.versionColumn + 1 + Int32(position))
            }
            return ("SELECT \(table.selectList), t0.\(column) \(rest)", table.endOfSelectList)
        case .joinTable(let join):
            let order = join.orderColumn.map { "j.\($0), " } ?? ""
            return ("SELECT \(table.selectList), j.\(join.sourceColumn) FROM \(join.name) j JOIN \(table.name) t0 ON t0.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) IN \(keyList) ORDER BY j.\(join.sourceColumn), \(order)t0.Z_PK",
                    table.endOfSelectList)
        case .foreignKey, .none:
            return nil
        }
    }
}

/// A to-many relationship's members query: its text, and where each row holds the member's entity
/// number (`nil`: the destination has no subentities, every member is of the destination entity) and
/// the owner's key; the destination's hierarchy root and entity numbers; the key of its prepared
/// statement when its text is kept (``SQLiteConnection/newStatementKey()``).
final class MembersSQL {
    let sql: String
    let entityColumn: Int32?
    let ownerColumn: Int32
    let root: Int
    let entity: Int
    var key: Int?

    init(sql: String, entityColumn: Int32?, ownerColumn: Int32, root: Int, entity: Int) {
        (self.sql, self.entityColumn, self.ownerColumn, self.root, self.entity) = (sql, entityColumn, ownerColumn, root, entity)
    }
}

/// A join table with the entities of its two columns, for deleting a row's join rows.
struct JoinTableInfo {
    let table: JoinTable
    /// The entity whose keys are in `sourceColumn` (the owner's entity).
    let ownerEntity: NSEntityDescription?
    /// The entity whose keys are in `destinationColumn`.
    let memberEntity: NSEntityDescription

    /// The columns that name a row of `entity` (its own or a subentity's): the owner's, the member's, both
    /// or neither; a deleted row's pairs are those with its key in them.
    func columns(naming entity: NSEntityDescription) -> [String] {
        var columns: [String] = []
        if let ownerEntity, entity.isKindOf(entity: ownerEntity) { columns.append(table.sourceColumn) }
        if entity.isKindOf(entity: memberEntity) { columns.append(table.destinationColumn) }
        return columns
    }

    static func all(of entities: [NSEntityDescription]) -> [JoinTableInfo] {
        var result: [String: JoinTableInfo] = [:]
        let stored = Set(entities.map { ObjectIdentifier($0) })
        for e in entities {
            for slot in e.layout.relationshipSlots where e.layout.properties[slot].entity === e {
                guard case .toMany(let r) = e.layout.kinds[slot], case .joinTable(let t) = r.storage, t.isOwner,
                      stored.contains(ObjectIdentifier(r.destination)) else { continue }
                result[t.name] = JoinTableInfo(table: t, ownerEntity: e, memberEntity: r.destination)
            }
        }
        return result.values.sorted { $0.table.name < $1.table.name }
    }
}

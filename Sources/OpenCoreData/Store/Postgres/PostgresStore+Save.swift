import Foundation

/// Saving to PostgreSQL: the store-neutral save algorithm (``StoreSave``) in one transaction on one
/// connection, its rows written by ``PostgresRowWriter``; keys reserved by
/// `UPDATE Z_PRIMARYKEY … RETURNING`, which holds the hierarchy's row lock until the transaction ends, so
/// that processes sharing the database never take the same key.
extension PostgresStore {
    func allocateKeys(root: Int, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        if isReadOnly { throw readOnlyError("allocate permanent IDs") }
        let first = try transaction { try reserveKeys(root: root, count: count, $0) }
        return (0..<Int64(count)).map { first + $0 }
    }

    /// Reserves `count` keys of a hierarchy inside the caller's transaction; returns the first.
    func reserveKeys(root: Int, count: Int, _ session: any PostgresSession) throws -> Int64 {
        let result = try run("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 RETURNING Z_MAX",
                             [.int(Int64(count)), .int(Int64(root))], on: session)
        guard let max = result.rows.first?.first?.integer else {
            throw CoreDataError(NSPersistentStoreOperationError, "The PostgreSQL store at \(location) has no Z_PRIMARYKEY row for entity \(root).")
        }
        return max - Int64(count) + 1
    }

    func save(_ changes: StoreChanges, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution]) throws -> StoreSaveOutcome {
        if isReadOnly { throw readOnlyError("save") }
        let newMetadata = pendingMetadata.withLock { pending in defer { pending = nil }; return pending }
        do {
            return try transaction { session in
                let tombstones = tracksHistory ? try historyTombstones(changes.deletes.map { ($0.layout, $0.key.primaryKey!) }, session) : [:]
                var writer = PostgresRowWriter(store: self, session: session)
                let outcome = try StoreSave.apply(changes, resolve: resolve, &writer)
                let number = try recordHistory(tracksHistory ? changes.historyRecords(outcome, tombstones: tombstones) : [], origin: changes.origin, session)
                if let newMetadata { try writeMetadata(newMetadata, session) }
                if !changes.isEmpty { try noticeChange(session, historyNumber: number) }
                try changes.beforeCommit?()
                return outcome
            }
        } catch {
            if let newMetadata { pendingMetadata.withLock { pending in if pending == nil { pending = newMetadata } } }
            throw error
        }
    }

    /// Writes metadata an app set (the store's own keys kept) inside the caller's transaction.
    func writeMetadata(_ given: [String: Any], _ session: any PostgresSession) throws {
        var plist = StoreMetadata.plistToWrite(given, keeping: metadata)
        plist[NSStoreTypeKey] = PostgresStoreKind.type
        try run(CoreDataTables.writeMetadata(try StoreMetadata.encode(plist)), on: session)
    }

    /// The arguments of some slots of a row: each attribute's stored value (a transformable one as its
    /// data), each to-one as its destination's key (and entity number when the destination has subentities).
    func columnArguments(_ layout: EntityLayout, slots: [Int], values: [Value], keys: KeyResolver) throws -> [Value] {
        var arguments: [Value] = []
        for slot in slots {
            guard case .toOne(let r) = layout.kinds[slot] else {
                arguments.append(try stored(layout, slot: slot, values[slot]))
                continue
            }
            let ref = values[slot].objectRef
            let pk = try ref.map { try keys.primaryKey($0, layout: layout, slot: slot) }
            arguments.append(pk.map { .int($0) } ?? .null)
            if case .foreignKey(_, _?) = r.storage { arguments.append(ref.map { .int(Int64($0.entityID)) } ?? .null) }
        }
        return arguments
    }

    private func stored(_ layout: EntityLayout, slot: Int, _ value: Value) throws -> Value {
        guard let attribute = layout.attribute(slot), attribute.attributeType == .transformableAttributeType, !value.isNull else { return value }
        return try AttributeTransform(attribute: attribute).data(for: value, entityName: layout.properties[slot].entity?.name ?? "?")
    }
}

/// The PostgreSQL store's row operations for the save algorithm, on the saving transaction's connection.
struct PostgresRowWriter: StoreRowWriter {
    let store: PostgresStore
    let session: any PostgresSession

    init(store: PostgresStore, session: any PostgresSession) {
        self.store = store
        self.session = session
    }

    /// A unique index refuses a row as it is written: inserts go last, after updates and deletes freed
    /// constrained values.
    var insertsLast: Bool { store.hasUniqueIndexes }

    mutating func reserveKeys(root: Int, count: Int) throws -> Int64 {
        try store.reserveKeys(root: root, count: count, session)
    }

    mutating func insert(_ layout: EntityLayout, pk: Int64, values: [Value], version: Int64, keys: KeyResolver) throws {
        let arguments = [.int(pk), .int(Int64(layout.entityID)), .int(version)]
            + (try store.columnArguments(layout, slots: layout.columnSlots, values: values, keys: keys))
        if let run = pending, run.entityID != layout.entityID || (run.rows.count + 1) * arguments.count > Self.parameterLimit { try flush() }
        if pending == nil {
            pending = (layout.entityID, store.table(for: layout).name, ["Z_PK", "Z_ENT", "Z_OPT"] + layout.columnNames(slots: layout.columnSlots), [])
        }
        pending!.rows.append(arguments)
    }

    /// PostgreSQL's most bound parameters in one statement.
    static let parameterLimit = 65_535

    /// Inserted rows not sent yet: a run of rows of one entity, sent as one multi-row `INSERT` before any
    /// other statement of the save (one round trip for many rows, not one per row).
    private var pending: (entityID: Int, table: String, columns: [String], rows: [[Value]])?

    /// Sends the pending inserted rows.
    mutating func flush() throws {
        guard let run = pending else { return }
        pending = nil
        let rows = run.rows.map { row in row.map { $0 == .null ? SQLExpression.null : .parameter($0) } }
        try store.run(.insert(SQLInsert(into: run.table, columns: run.columns, rows: rows)), on: session)
    }

    mutating func writeRelationships(_ layout: EntityLayout, pk: Int64, values: [Value], old: [Value]?, keys: KeyResolver) throws {
        try flush()
        for slot in layout.relationshipSlots {
            guard case .toMany(let r) = layout.kinds[slot] else { continue }
            let new = values[slot]
            guard !new.isToManyFault else { continue }
            if let old, old[slot] == new { continue }
            let members = try new.objectRefs.map { try keys.primaryKey($0, layout: layout, slot: slot) }
            switch r.storage {
            case .joinTable(let join) where join.isOwner || join.orderColumn != nil:
                try writeJoinRows(join, r, pk: pk, members: members, old: old.map { $0[slot] }, keys: keys, layout: layout, slot: slot)
            case .inverseForeignKey(_, let order?):
                let table = store.tables[r.destination.layout.rootEntityID]!
                for (i, member) in members.enumerated() {
                    try store.run(.update(SQLUpdate(table: table.name, assignments: [SQLAssignment(order, .parameter(.int(Int64(i + 1))))],
                                                    conditions: [.equals("Z_PK", .parameter(.int(member)))])), on: session)
                }
            default:
                continue
            }
        }
    }

    /// A join table's rows for one owner: removed members' rows deleted, new members' inserted, and each
    /// member's position written when the relationship is ordered.
    private func writeJoinRows(_ join: JoinTable, _ r: RelationshipLayout, pk: Int64, members: [Int64], old: Value?,
                               keys: KeyResolver, layout: EntityLayout, slot: Int) throws {
        if join.isOwner {
            let before: [Int64]
            if let old, !old.isToManyFault {
                before = try old.objectRefs.map { try keys.primaryKey($0, layout: layout, slot: slot) }
            } else if old == nil {
                before = []
            } else {
                let current = try store.run("SELECT \(join.destinationColumn) FROM \(join.name) WHERE \(join.sourceColumn) = $1", [.int(pk)], on: session)
                before = current.rows.compactMap { $0[0].integer }
            }
            let previous = Set(before)
            let gone = previous.subtracting(members).sorted()
            if gone.count == 1 {
                try store.run(.delete(SQLDelete(table: join.name, conditions: [.equals(join.sourceColumn, .parameter(.int(pk))),
                                                                                .equals(join.destinationColumn, .parameter(.int(gone[0])))])), on: session)
            } else if !gone.isEmpty {
                _ = try store.run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = $1 AND \(join.destinationColumn) = ANY($2)",
                                  [.int(pk), PostgresStore.keyArray(gone)], on: session)
            }
            if join.orderColumn == nil {
                for added in members where !previous.contains(added) {
                    try store.run(.insert(SQLInsert(into: join.name, columns: [join.sourceColumn, join.destinationColumn],
                                                    rows: [[.parameter(.int(pk)), .parameter(.int(added))]], conflict: .ignore)), on: session)
                }
                return
            }
        }
        guard let order = join.orderColumn else { return }
        let key = join.isOwner ? [join.sourceColumn, join.destinationColumn] : [join.destinationColumn, join.sourceColumn]
        for (i, member) in members.enumerated() {
            try store.run(.insert(SQLInsert(into: join.name, columns: [join.sourceColumn, join.destinationColumn, order],
                                            rows: [[.parameter(.int(pk)), .parameter(.int(member)), .parameter(.int(Int64(i + 1)))]],
                                            conflict: .update(key: key, columns: [order]))), on: session)
        }
    }

    mutating func update(_ layout: EntityLayout, pk: Int64, slots: [Int], values: [Value], newVersion: Int64, expected: Int64,
                         keys: KeyResolver) throws -> Bool {
        try flush()
        let columns = ["Z_OPT"] + layout.columnNames(slots: slots)
        let arguments = [Value.int(newVersion)] + (try store.columnArguments(layout, slots: slots, values: values, keys: keys))
        let update = SQLUpdate(table: store.table(for: layout).name, assignments: zip(columns, arguments).map { SQLAssignment($0, .parameter($1)) },
                               conditions: [.equals("Z_PK", .parameter(.int(pk))), .equals("Z_OPT", .parameter(.int(expected)))])
        return try store.run(.update(update), on: session) == 1
    }

    mutating func delete(_ layout: EntityLayout, pk: Int64, version: Int64) throws -> Bool {
        try flush()
        let delete = SQLDelete(table: store.table(for: layout).name, conditions: [.equals("Z_PK", .parameter(.int(pk))), .equals("Z_OPT", .parameter(.int(version)))])
        return try store.run(.delete(delete), on: session) > 0
    }

    mutating func deleteRelationships(_ layout: EntityLayout, pks: [Int64]) throws {
        try flush()
        guard !pks.isEmpty, let entity = store.model.entity(number: layout.entityID) else { return }
        for join in store.joinTables {
            for column in join.columns(naming: entity) {
                _ = try store.run("DELETE FROM \(join.table.name) WHERE \(column) = ANY($1)", [PostgresStore.keyArray(pks)], on: session)
            }
        }
    }

    mutating func currentRow(root: Int, pk: Int64) throws -> StoreRow? {
        try flush()
        guard let table = store.tables[root] else { return nil }
        return try store.rows(of: table, [pk]) { try store.run($0, $1, on: session) }[pk]
    }

    /// Sends what is pending; the PostgreSQL store computes no derived attributes (it refuses models
    /// with them).
    mutating func finish(_ outcome: inout StoreSaveOutcome) throws { try flush() }
}

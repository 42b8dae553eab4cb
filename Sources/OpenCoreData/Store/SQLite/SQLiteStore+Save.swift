import Foundation

extension SQLiteStore {
    /// Reserves `count` primary keys for a hierarchy (Core Data's `Z_PRIMARYKEY.Z_MAX`).
    func allocateKeys(root: Int, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        if isReadOnly { throw readOnlyError("allocate permanent IDs") }
        var first: Int64 = 0
        try wrap { try write { db in try db.transaction { first = try reserveKeys(root: root, count: count, db) } } }
        return (0..<Int64(count)).map { first + $0 }
    }

    /// Advances `Z_MAX` of a hierarchy by `count` inside the caller's transaction; returns the first of the
    /// `count` consecutive keys reserved.
    func reserveKeys(root: Int, count: Int, _ db: SQLiteConnection) throws -> Int64 {
        var first: Int64 = 0
        try db.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.int(Int64(root))]) { first = $0.int64(0) + 1 }
        try db.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.int(first + Int64(count) - 1), .int(Int64(root))])
        return first
    }

    /// Writes a changeset in one transaction. Updates and deletes check the row version they read
    /// (`Z_OPT`); the rows that changed since are handed to `resolve` inside the transaction, and its
    /// decisions are written before the commit. If anything throws, nothing is written.
    func save(_ changes: StoreChanges, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution]) throws -> StoreSaveOutcome {
        if isReadOnly { throw readOnlyError("save") }
        let newMetadata = pendingMetadata.withLock { pending in defer { pending = nil }; return pending }
        do {
            return try fileTransaction { db in
                let tombstones = tracksHistory ? try historyTombstones(changes.deletes.map { ($0.layout, $0.key.primaryKey!) }, db) : [:]
                let outcome = try apply(changes, resolve: resolve, db)
                try recordHistory(historyRecords(changes, outcome, tombstones: tombstones), origin: changes.origin, db)
                if let newMetadata { try StoreMetadata.write(StoreMetadata.plistToWrite(newMetadata, keeping: metadata), uuid: nil, db) }
                try changes.beforeCommit?()
                return outcome
            }
        } catch {
            if let newMetadata { pendingMetadata.withLock { pending in if pending == nil { pending = newMetadata } } }
            throw error
        }
    }

    /// Runs `body` in one transaction on the writer, keeping the external files it writes: removed when
    /// the transaction rolls back (nothing names them), and the files it replaced or deleted removed once
    /// it commits.
    func fileTransaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let files = SaveFiles()
        var result: T?
        do {
            try wrap {
                try write { db in
                    saveFiles = files
                    defer { saveFiles = nil }
                    try db.transaction { result = try body(db) }
                }
            }
        } catch {
            externalStorage?.remove(files.written)
            throw error
        }
        externalStorage?.remove(files.obsolete)
        return result!
    }

    private func apply(_ changes: StoreChanges, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution],
                       _ db: SQLiteConnection) throws -> StoreSaveOutcome {
        var outcome = StoreSaveOutcome()
        // Keys for inserts that have none yet, all before any row is written: a row may name another
        // inserted object in a foreign key. A hierarchy's new rows take its reserved keys in insert order.
        var reserved = ReservedKeys()
        for insert in changes.inserts where insert.key?.primaryKey == nil { reserved.count(insert.layout.rootEntityID) }
        for i in reserved.hierarchies.indices {
            reserved.hierarchies[i].next = try reserveKeys(root: reserved.hierarchies[i].root, count: reserved.hierarchies[i].count, db)
        }
        var insertedPKs: [Int64] = []
        insertedPKs.reserveCapacity(changes.inserts.count)
        for insert in changes.inserts {
            insertedPKs.append(insert.key?.primaryKey ?? reserved.take(insert.layout.rootEntityID))
        }
        outcome.insertedPrimaryKeys = insertedPKs
        // Only rows with relationships name other objects, by key.
        outcome.renaming = changes.renaming(insertedPKs)
        let keys = KeyResolver(inserted: outcome.renaming)
        func writeInserts() throws {
            // One prepared INSERT per entity, bound and stepped for each of its rows.
            var statements: [Int: SQLiteStatement] = [:]
            var last: (entityID: Int, statement: SQLiteStatement, plain: Bool)?
            for (insert, pk) in zip(changes.inserts, insertedPKs) {
                let entityID = insert.layout.entityID
                if last?.entityID != entityID {
                    let statement = try statements[entityID] ?? db.statement(insertSQL[entityID]!)
                    statements[entityID] = statement
                    last = (entityID, statement, bindsAsGiven(insert.layout))
                }
                try write(insert, pk: pk, keys: keys, with: last!.statement, asGiven: last!.plain, db)
            }
            // After every row is in: an ordered to-many writes its members' positions into their rows, which
            // an insert written later would reset.
            for (insert, pk) in zip(changes.inserts, insertedPKs) where !insert.layout.relationshipSlots.isEmpty {
                try writeRelationships(insert.layout, pk: pk, values: insert.values, old: nil, keys: keys, db)
            }
        }
        // With unique indexes, rows are inserted after the updates and deletes, so that a constrained
        // value one object gives up (or a deleted row held) can be taken by a new object in the same save.
        let insertsLast = hasUniqueIndexes
        if !insertsLast { try writeInserts() }
        var conflicts: [StoreConflict] = []
        var layouts: [ObjectKey: EntityLayout] = [:]
        var updates = UpdateStatements()
        for update in changes.updates {
            let pk = update.key.primaryKey!
            let changed = update.layout.columnSlots.filter { update.snapshot[$0] != update.values[$0] }
            if try writeRow(update.layout, pk: pk, slots: changed, values: update.values,
                            newVersion: update.version + 1, expected: update.version, keys: keys, &updates, db) {
                try writeRelationships(update.layout, pk: pk, values: update.values, old: update.snapshot, keys: keys, db)
                outcome.rows[update.key] = StoreRow(pk: pk, entityID: update.layout.entityID, version: update.version + 1, values: update.values)
                continue
            }
            // The row changed or vanished since the object read it.
            let current = try loadRows(root: update.layout.rootEntityID, pks: [pk], db)[pk]
            conflicts.append(StoreConflict(key: update.key, isDelete: false, current: current, objectVersion: update.version))
            layouts[update.key] = update.layout
        }
        for delete in changes.deletes {
            let pk = delete.key.primaryKey!
            let table = self.table(for: delete.layout)
            let files = try externalFiles(delete.layout, pk: pk, slots: attributeSlots(delete.layout), db)
            guard try db.run("DELETE FROM \(table.name) WHERE Z_PK = ? AND Z_OPT = ?", [.int(pk), .int(delete.version)]) == 0 else {
                saveFiles?.obsolete += files
                try deleteJoinRows(delete.layout, pk: pk, db)
                outcome.rows[delete.key] = .some(nil)
                continue
            }
            // Gone already is no conflict; a row at another version is.
            guard let current = try loadRows(root: delete.layout.rootEntityID, pks: [pk], db)[pk] else {
                try deleteJoinRows(delete.layout, pk: pk, db)
                outcome.rows[delete.key] = .some(nil)
                continue
            }
            conflicts.append(StoreConflict(key: delete.key, isDelete: true, current: current, objectVersion: delete.version))
            layouts[delete.key] = delete.layout
        }
        if insertsLast { try writeInserts() }
        if !conflicts.isEmpty {
            let decisions = try resolve(conflicts)
            for conflict in conflicts {
                let layout = layouts[conflict.key]!, pk = conflict.key.primaryKey!
                switch decisions[conflict.key] ?? .keepStore {
                case .keepStore:
                    outcome.rows[conflict.key] = .some(conflict.current)
                case .write(let values, let snapshot, let version):
                    let slots = layout.columnSlots.filter { values[$0] != snapshot[$0] }
                    guard try writeRow(layout, pk: pk, slots: slots, values: values, newVersion: version + 1, expected: version, keys: keys, &updates, db) else {
                        throw CoreDataError(NSManagedObjectMergeError, "The merge policy resolved a conflict against row version \(version), which is not the store's.")
                    }
                    try writeRelationships(layout, pk: pk, values: values, old: snapshot, keys: keys, db)
                    outcome.rows[conflict.key] = StoreRow(pk: pk, entityID: layout.entityID, version: version + 1, values: values)
                case .reinsert(let values):
                    try insertRow(layout, pk: pk, values: values, version: conflict.objectVersion + 1, keys: keys, db)
                    try writeRelationships(layout, pk: pk, values: values, old: nil, keys: keys, db)
                    outcome.rows[conflict.key] = StoreRow(pk: pk, entityID: layout.entityID, version: conflict.objectVersion + 1, values: values)
                case .delete(let version):
                    let files = try externalFiles(layout, pk: pk, slots: attributeSlots(layout), db)
                    if try db.run("DELETE FROM \(table(for: layout).name) WHERE Z_PK = ? AND Z_OPT = ?", [.int(pk), .int(version)]) > 0 {
                        saveFiles?.obsolete += files
                    }
                    try deleteJoinRows(layout, pk: pk, db)
                    outcome.rows[conflict.key] = .some(nil)
                }
            }
        }
        try applyDerived(&outcome, db)
        return outcome
    }

    /// The values of a row's columns in `rowColumns` order: attributes as stored (as they are, unless
    /// `storing` is false: then as given, with no external file written), a to-one as its destination's
    /// primary key (and entity number, when it has an entity column).
    private func columnArguments(_ layout: EntityLayout, slots: [Int], values: [Value], keys: KeyResolver, storing: Bool = true,
                                 into arguments: inout some RowArgumentSink) throws {
        // Most entities store every attribute as it is (no transformable, external or derived slot).
        let special = storing ? specialSlots[layout.entityID] : nil
        for slot in slots {
            guard case .toOne(let r) = layout.kinds[slot] else {
                try arguments.add(special == nil ? values[slot] : try storedArgument(layout, slot: slot, values[slot]))
                continue
            }
            let ref = values[slot].objectRef
            let pk = try ref.map { try keys.primaryKey($0, layout: layout, slot: slot) }
            try arguments.add(pk.map { .int($0) } ?? .null)
            if case .foreignKey(_, _?) = r.storage { try arguments.add(ref.map { .int(Int64($0.entityID)) } ?? .null) }
        }
    }

    func insertRow(_ layout: EntityLayout, pk: Int64, values: [Value], version: Int64, keys: KeyResolver, _ db: SQLiteConnection) throws {
        var arguments: [Value] = []
        try rowArguments(layout, pk: pk, values: values, version: version, keys: keys, into: &arguments)
        try db.run(insertSQL[layout.entityID]!, arguments)
    }

    /// Whether every column of an entity's rows is an attribute bound as it is (no to-one, no derived,
    /// transformable or external-storage slot): its inserts then bind the values as they are
    /// (``SQLiteStatement/bindRow(pk:entityID:version:_:slots:)``).
    func bindsAsGiven(_ layout: EntityLayout) -> Bool {
        specialSlots[layout.entityID] == nil && !layout.columnSlots.contains { layout.kinds[$0].relationship != nil }
    }

    /// Writes an inserted row with its entity's prepared `INSERT`, its values bound in place (`asGiven`:
    /// the entity's columns are attributes bound as they are, see ``bindsAsGiven(_:)``). A failure names
    /// the row's values as given (storing them again could write another external file).
    func write(_ insert: StoreChanges.Insert, pk: Int64, keys: KeyResolver, with statement: SQLiteStatement, asGiven: Bool,
               _ db: SQLiteConnection) throws {
        func given() -> [Value] {
            var arguments: [Value] = []
            try? rowArguments(insert.layout, pk: pk, values: insert.values, version: 1, keys: keys, storing: false, into: &arguments)
            return arguments
        }
        do {
            if asGiven {
                try statement.bindRow(pk: pk, entityID: insert.layout.entityID, version: 1, insert.values, slots: insert.layout.columnSlots)
            } else {
                var binder = StatementBinder(statement)
                try rowArguments(insert.layout, pk: pk, values: insert.values, version: 1, keys: keys, into: &binder)
            }
        } catch var error as SQLiteError where error.arguments.isEmpty {
            error.arguments = given()
            throw error
        }
        try db.runBound(statement, arguments: given())
    }

    /// The arguments of an entity's `INSERT` (see ``insertSQL(_:table:)``) for one row.
    private func rowArguments(_ layout: EntityLayout, pk: Int64, values: [Value], version: Int64, keys: KeyResolver, storing: Bool = true,
                              into arguments: inout some RowArgumentSink) throws {
        try arguments.add(.int(pk))
        try arguments.add(.int(Int64(layout.entityID)))
        try arguments.add(.int(version))
        try columnArguments(layout, slots: layout.columnSlots, values: values, keys: keys, storing: storing, into: &arguments)
    }

    /// The column names of some slots: a to-one with an entity column names both.
    static func columnNames(_ layout: EntityLayout, slots: [Int]) -> [String] {
        slots.flatMap { slot -> [String] in
            if case .toOne(let r) = layout.kinds[slot], case .foreignKey(let column, let entityColumn?) = r.storage { return [column, entityColumn] }
            return [layout.columns[slot]!]
        }
    }

    /// `INSERT INTO table (Z_PK, Z_ENT, Z_OPT, columns…) VALUES (?, …)` for an entity.
    static func insertSQL(_ layout: EntityLayout, table: TableInfo) -> String {
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + columnNames(layout, slots: layout.columnSlots)
        return "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: columns.count - 1)))"
    }

    /// `UPDATE … SET Z_OPT = new, changed columns WHERE Z_PK = ? AND Z_OPT = expected`; false if no row matched.
    /// The statement is prepared once per entity and set of columns in a save (`statements`).
    func writeRow(_ layout: EntityLayout, pk: Int64, slots: [Int], values: [Value], newVersion: Int64,
                          expected: Int64, keys: KeyResolver, _ statements: inout UpdateStatements, _ db: SQLiteConnection) throws -> Bool {
        let slots = writtenSlots(layout, slots)
        let shape = UpdateStatements.Shape(entityID: layout.entityID, slots: slots)
        let statement: SQLiteStatement
        if let prepared = statements.byShape[shape] {
            statement = prepared
        } else {
            let sets = Self.columnNames(layout, slots: slots).map { ", \($0) = ?" }.joined()
            statement = try db.statement("UPDATE \(table(for: layout).name) SET Z_OPT = ?\(sets) WHERE Z_PK = ? AND Z_OPT = ?")
            statements.byShape[shape] = statement
        }
        var arguments: [Value] = [.int(newVersion)]
        let files = try externalFiles(layout, pk: pk, slots: slots, db)
        try columnArguments(layout, slots: slots, values: values, keys: keys, into: &arguments)
        arguments.append(.int(pk))
        arguments.append(.int(expected))
        guard try db.run(statement, arguments) == 1 else { return false }
        saveFiles?.obsolete += files
        return true
    }
}

/// The primary keys a save reserves, per hierarchy (root entity): how many, then the next one to give.
/// A save's inserts are mostly of one hierarchy, so a short list searched from the last one used.
private struct ReservedKeys {
    var hierarchies: [(root: Int, count: Int, next: Int64)] = []
    private var last = 0

    mutating func count(_ root: Int) {
        hierarchies[index(root)].count += 1
    }

    mutating func take(_ root: Int) -> Int64 {
        let i = index(root)
        defer { hierarchies[i].next += 1 }
        return hierarchies[i].next
    }

    private mutating func index(_ root: Int) -> Int {
        if last < hierarchies.count, hierarchies[last].root == root { return last }
        last = hierarchies.firstIndex { $0.root == root } ?? {
            hierarchies.append((root, 0, 0))
            return hierarchies.count - 1
        }()
        return last
    }
}

/// A save's prepared `UPDATE`s, one per entity and set of written columns.
struct UpdateStatements {
    struct Shape: Hashable {
        let entityID: Int
        let slots: [Int]
    }
    var byShape: [Shape: SQLiteStatement] = [:]
}

/// Primary keys of the objects a save's rows name: saved rows by their key, objects inserted by this
/// save by the key it gave them. Naming an unsaved object that this save does not insert is an error.
struct KeyResolver {
    let inserted: KeyRenaming

    func primaryKey(_ ref: ObjectRef, layout: EntityLayout, slot: Int) throws -> Int64 {
        if let pk = ref.key.primaryKey ?? inserted[ref.key]?.primaryKey { return pk }
        throw CoreDataError(NSManagedObjectValidationError,
                            "Dangling reference to an invalid object: \(layout.properties[slot].entity?.name ?? "?").\(layout.properties[slot].name) names an object that is not saved and not inserted in this context.",
                            userInfo: [NSValidationKeyErrorKey: layout.properties[slot].name])
    }
}

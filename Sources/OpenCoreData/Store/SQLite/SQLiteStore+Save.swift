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
        try db.run(CoreDataTables.advanceKeys(root: root, to: first + Int64(count) - 1))
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
                var writer = SQLiteRowWriter(store: self, db: db)
                let outcome = try StoreSave.apply(changes, resolve: resolve, &writer)
                try recordHistory(tracksHistory ? changes.historyRecords(outcome, tombstones: tombstones) : [], origin: changes.origin, db)
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

    /// Whether every column of an entity's rows is an attribute bound as it is (no to-one, no derived,
    /// transformable or external-storage slot): its inserts then bind the values as they are
    /// (``SQLiteStatement/bindRow(pk:entityID:version:_:slots:)``).
    func bindsAsGiven(_ layout: EntityLayout) -> Bool {
        specialSlots[layout.entityID] == nil && !layout.columnSlots.contains { layout.kinds[$0].relationship != nil }
    }

    /// Writes an inserted row with its entity's prepared `INSERT`, its values bound in place (`asGiven`:
    /// the entity's columns are attributes bound as they are, see ``bindsAsGiven(_:)``). A failure names
    /// the row's values as given (storing them again could write another external file).
    func write(_ layout: EntityLayout, _ values: [Value], pk: Int64, version: Int64 = 1, keys: KeyResolver, with statement: SQLiteStatement,
               asGiven: Bool, _ db: SQLiteConnection) throws {
        func given() -> [Value] {
            var arguments: [Value] = []
            try? rowArguments(layout, pk: pk, values: values, version: version, keys: keys, storing: false, into: &arguments)
            return arguments
        }
        do {
            if asGiven {
                try statement.bindRow(pk: pk, entityID: layout.entityID, version: version, values, slots: layout.columnSlots)
            } else {
                var binder = StatementBinder(statement)
                try rowArguments(layout, pk: pk, values: values, version: version, keys: keys, into: &binder)
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

    /// `INSERT INTO table (Z_PK, Z_ENT, Z_OPT, columns…) VALUES (?, …)` for an entity.
    static func insertSQL(_ layout: EntityLayout, table: TableInfo) -> String {
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + layout.columnNames(slots: layout.columnSlots)
        return SQLitePrinter.text(.insert(SQLInsert(into: table.name, columns: columns)))
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
            let sets = (["Z_OPT"] + layout.columnNames(slots: slots)).map { SQLAssignment($0) }
            let update = SQLUpdate(table: table(for: layout).name, assignments: sets, conditions: [.equals("Z_PK"), .equals("Z_OPT")])
            statement = try db.statement(SQLitePrinter.text(.update(update)))
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

/// A save's prepared `UPDATE`s, one per entity and set of written columns.
struct UpdateStatements {
    struct Shape: Hashable {
        let entityID: Int
        let slots: [Int]
    }
    var byShape: [Shape: SQLiteStatement] = [:]
}

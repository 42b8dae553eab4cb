import Foundation

/// The SQLite store's row operations for the save algorithm (``StoreSave``), on the writer connection
/// inside the save's transaction: one prepared `INSERT` per entity and one `UPDATE` per entity and set of
/// columns, each bound and stepped for every row of the save; external files follow the transaction
/// (``SQLiteStore/fileTransaction(_:)``).
struct SQLiteRowWriter: StoreRowWriter {
    let store: SQLiteStore
    let db: SQLiteConnection
    private var inserts: [Int: SQLiteStatement] = [:]
    /// The last entity inserted, its statement and whether its values bind as given (most saves insert
    /// runs of one entity).
    private var last: (entityID: Int, statement: SQLiteStatement, plain: Bool)?
    private var updates = UpdateStatements()

    init(store: SQLiteStore, db: SQLiteConnection) {
        self.store = store
        self.db = db
    }

    /// SQLite checks unique indexes as each row is written.
    var insertsLast: Bool { store.hasUniqueIndexes }

    mutating func reserveKeys(root: Int, count: Int) throws -> Int64 {
        try store.reserveKeys(root: root, count: count, db)
    }

    mutating func insert(_ layout: EntityLayout, pk: Int64, values: [Value], version: Int64, keys: KeyResolver) throws {
        let entityID = layout.entityID
        if last?.entityID != entityID {
            let statement = try inserts[entityID] ?? db.statement(store.insertSQL[entityID]!)
            inserts[entityID] = statement
            last = (entityID, statement, store.bindsAsGiven(layout))
        }
        try store.write(layout, values, pk: pk, version: version, keys: keys, with: last!.statement, asGiven: last!.plain, db)
    }

    mutating func writeRelationships(_ layout: EntityLayout, pk: Int64, values: [Value], old: [Value]?, keys: KeyResolver) throws {
        try store.writeRelationships(layout, pk: pk, values: values, old: old, keys: keys, db)
    }

    mutating func update(_ layout: EntityLayout, pk: Int64, slots: [Int], values: [Value], newVersion: Int64, expected: Int64,
                         keys: KeyResolver) throws -> Bool {
        try store.writeRow(layout, pk: pk, slots: slots, values: values, newVersion: newVersion, expected: expected, keys: keys, &updates, db)
    }

    /// The row's externally stored files go once the transaction commits: the `DELETE` returns the columns
    /// naming them (`RETURNING`), so a delete is one statement whatever the row keeps outside.
    mutating func delete(_ layout: EntityLayout, pk: Int64, version: Int64) throws -> Bool {
        let delete = SQLDelete(table: store.table(for: layout).name, conditions: [.equals("Z_PK", .parameter(.int(pk))), .equals("Z_OPT", .parameter(.int(version)))])
        guard let columns = store.externalColumns(layout, slots: store.attributeSlots(layout)) else {
            return try db.run(.delete(delete)) > 0
        }
        var context = SQLGenerationContext()
        let sql = SQLitePrinter.sql(.delete(delete), &context) + " RETURNING \(columns.joined(separator: ", "))"
        var deleted = false
        store.saveFiles?.obsolete += try store.externalFiles(columns, sql: sql, context.arguments, db) { deleted = true }
        return deleted
    }

    mutating func deleteRelationships(_ layout: EntityLayout, pks: [Int64]) throws {
        try store.deleteJoinRows(layout, pks: pks, db)
    }

    mutating func currentRow(root: Int, pk: Int64) throws -> StoreRow? {
        try store.loadRows(root: root, pks: [pk], db)[pk]
    }

    mutating func finish(_ outcome: inout StoreSaveOutcome) throws {
        try store.applyDerived(&outcome, db)
    }
}

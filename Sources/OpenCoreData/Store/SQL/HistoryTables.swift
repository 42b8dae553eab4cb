import Foundation

/// Core Data's persistent history tables, as a store written with `NSPersistentHistoryTrackingKey` holds
/// them (the fixture `coredataplus-samplemodel2-history`), as values any SQL store prints: `ATRANSACTION`
/// (one row per saved transaction, its strings by key into `ATRANSACTIONSTRING`), `ACHANGE` (one row per
/// changed object), their entity numbers 16001–16003 in `Z_PRIMARYKEY`, and the same indexes.
enum HistoryTables {
    /// The bundle and process names every transaction of this process records (Core Data records the
    /// app's bundle identifier and process name; a Linux program has no bundle identifier unless its
    /// `Bundle.main` has one, so the process name stands for both then).
    static let processName = ProcessInfo.processInfo.processName
    static let bundleID = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    static let changeEntity = 16001
    static let transactionEntity = 16002
    static let stringEntity = 16003

    /// The tables and indexes, each made only when missing.
    static var schema: [SQLSchemaChange] {[
        table("ACHANGE", ["ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID"].map { .init($0, .integer) } + [.init("ZCOLUMNS", .blob)]),
        table("ATRANSACTION", ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"].map { .init($0, .integer) }
              + [.init("ZTIMESTAMP", .float)] + ["ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID"].map { .init($0, .varchar(length: nil)) }
              + [.init("ZQUERYGEN", .blob)]),
        table("ATRANSACTIONSTRING", [.init("ZNAME", .varchar(length: nil))]),
        index("ACHANGE_ZTRANSACTIONID_INDEX", "ACHANGE", .init("ZTRANSACTIONID")),
        index("ATRANSACTION_ZAUTHORTS_INDEX", "ATRANSACTION", .init("ZAUTHORTS")),
        index("ATRANSACTION_ZBUNDLEIDTS_INDEX", "ATRANSACTION", .init("ZBUNDLEIDTS")),
        index("ATRANSACTION_ZCONTEXTNAMETS_INDEX", "ATRANSACTION", .init("ZCONTEXTNAMETS")),
        index("ATRANSACTION_ZPROCESSIDTS_INDEX", "ATRANSACTION", .init("ZPROCESSIDTS")),
        index("Z_TRANSACTION_TransactionAuthorIndex", "ATRANSACTION", .init("ZAUTHOR", ascending: true)),
        index("Z_TRANSACTION_TransactionTimestampIndex", "ATRANSACTION", .init("ZTIMESTAMP", ascending: true)),
        index("Z_TRANSACTIONSTRING_UNIQUE_NAME", "ATRANSACTIONSTRING", .init("ZNAME", ascending: true), unique: true),
    ]}

    /// History's rows in `Z_PRIMARYKEY`, written unless there.
    static var primaryKeyRows: [SQLWrite] {
        [(changeEntity, "CHANGE"), (transactionEntity, "TRANSACTION"), (stringEntity, "TRANSACTIONSTRING")].map {
            CoreDataTables.primaryKeyRow(entity: $0.0, name: $0.1, superentity: 0, conflict: .ignore)
        }
    }

    /// The `k`th column of a deleted row's preserved values in `ACHANGE` (untyped: any attribute's value).
    static func tombstoneColumn(_ k: Int) -> SQLSchemaChange {
        .addColumn(table: "ACHANGE", SQLColumnDefinition("ZTOMBSTONE\(k)", .untyped))
    }

    /// `INSERT INTO ATRANSACTION (…)` of one transaction, its strings by key.
    static func transactionRow(_ pk: Int64, strings: [Value], timestamp: Double) -> SQLWrite {
        .insert(SQLInsert(into: "ATRANSACTION", columns: bookkeeping + ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS", "ZTIMESTAMP"],
                          rows: [[.parameter(.int(pk)), .parameter(.int(Int64(transactionEntity))), .integer(1)]
                                 + (strings + [.double(timestamp)]).map(bind)]))
    }

    /// `INSERT INTO ACHANGE (…)` of `count` changes (their arguments one after the other), prepared once
    /// for a save's changes; `width` tombstone columns.
    static func changeRow(tombstones width: Int, count: Int = 1) -> SQLWrite {
        let columns = ["ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS"] + (0..<width).map { "ZTOMBSTONE\($0)" }
        let row: [SQLExpression] = [.placeholder, .placeholder, .integer(1)] + columns.map { _ in .placeholder }
        return .insert(SQLInsert(into: "ACHANGE", columns: bookkeeping + columns, rows: Array(repeating: row, count: count)))
    }

    /// `INSERT INTO ATRANSACTIONSTRING (…)` of a new string.
    /// The arguments of ``changeRow(tombstones:)`` for one change: its key, kind, entity, row key,
    /// transaction, changed columns (an update's) and `width` tombstone values, each as `stored` keeps it.
    static func changeArguments(_ record: HistoryRecord, id: Int64, transaction: Int64, width: Int,
                                stored: (Value) -> Value = { $0 }) -> [Value] {
        var arguments: [Value] = [.int(id), .int(Int64(changeEntity)), .int(record.kind.rawValue), .int(Int64(record.entityID)),
                                  .int(record.pk), .int(transaction), record.kind == .update ? .data(HistorySchema.columnsBlob(record.columns)) : .null]
        for k in 0..<width { arguments.append(k < record.tombstone.count ? stored(record.tombstone[k]) : .null) }
        return arguments
    }

    static func stringRow(_ pk: Int64, _ name: String, ignoringDuplicate: Bool = false) -> SQLWrite {
        .insert(SQLInsert(into: "ATRANSACTIONSTRING", columns: bookkeeping + ["ZNAME"],
                          rows: [[.parameter(.int(pk)), .parameter(.int(Int64(stringEntity))), .integer(1), .parameter(.string(name))]],
                          conflict: ignoringDuplicate ? .ignore : .fail))
    }

    private static let bookkeeping = ["Z_PK", "Z_ENT", "Z_OPT"]

    private static func bind(_ value: Value) -> SQLExpression { value == .null ? .null : .parameter(value) }

    private static func table(_ name: String, _ columns: [SQLColumnDefinition]) -> SQLSchemaChange {
        .createTable(SQLCreateTable(name: name, columns: [.init("Z_PK", .integer, primaryKey: true), .init("Z_ENT", .integer),
                                                          .init("Z_OPT", .integer)] + columns, ifNotExists: true))
    }

    private static func index(_ name: String, _ table: String, _ column: SQLCreateIndex.Column, unique: Bool = false) -> SQLSchemaChange {
        .createIndex(SQLCreateIndex(name: name, table: table, columns: [column], unique: unique, ifNotExists: true))
    }
}

import CSQLite
import Foundation
import Logging

/// The SQLite store: one database file (WAL journal) or an in-memory database, one table per entity
/// hierarchy, `Z_PRIMARYKEY` for key allocation and `Z_METADATA` for the store's identity and model hash.
///
/// Concurrency: one writer connection (saves, key allocation) and, for a file, two reader connections.
/// In WAL mode a reader sees the last committed state and is never blocked by a writer's transaction, so
/// fetches in one context proceed while another context saves. Each connection is used by one thread at
/// a time under its own lock. An in-memory store has one connection for both.
final class SQLiteStore: StoreBackend, @unchecked Sendable {
    let connection: SQLiteConnection
    private let writerLock = NSLock()
    private let readers: [(connection: SQLiteConnection, lock: NSLock)]
    private let readerCounter = NSLock()
    private var nextReader = 0
    let model: NSManagedObjectModel
    /// The entities this store keeps: its configuration's hierarchies (every entity without one).
    let entities: [NSEntityDescription]
    let identifier: String
    let tables: [Int: TableInfo]
    /// The INSERT statement of each entity, by entity ID.
    let insertSQL: [Int: String]
    /// The join tables of many-to-many relationships.
    let joinTables: [JoinTableInfo]

    /// True when the store was added with `NSReadOnlyPersistentStoreOption`: saves throw before writing.
    let isReadOnly: Bool
    /// The store's metadata as it opened (see ``StoreMetadata``).
    let metadata: [String: Any]
    /// Metadata an app set on the store (`NSPersistentStore.metadata`, the coordinator's
    /// `setMetadata(_:for:)`), written by the next save's transaction, as Core Data writes it.
    let pendingMetadata = LockedValue<[String: Any]?>(nil)
    /// The store file's path (`:memory:` for an in-memory store).
    let path: String
    /// Whether lists of keys are bound as one JSON array (`json_each`), which SQLite has unless built
    /// without its JSON functions; otherwise in chunks of 500 parameters (see ``SQLiteKeyList``). Tests
    /// turn it off to run the fallback.
    var usesJSONKeyLists: Bool
    /// How to read a row of each entity, by entity number (see ``RowShape``).
    private(set) var rowShapes: [RowShape?] = []
    /// Each stored to-many relationship's members query for one owner (what firing its fault runs), by
    /// `ObjectIdentifier` of its `RelationshipLayout`; made when the store opens.
    private(set) var oneOwnerMembersSQL: [ObjectIdentifier: MembersSQL] = [:]
    /// The derived attributes the store computes (see ``DerivedColumn``).
    let derivedColumns: [DerivedColumn]
    /// The derived slots of each entity, by entity number (not written from objects' values).
    let derivedSlots: [Int: Set<Int>]
    /// Where values of attributes with `allowsExternalBinaryDataStorage` go when they are large (`nil`
    /// for an in-memory store: every value stays in its row).
    let externalStorage: ExternalBinaryStorage?
    /// Per entity number, the slots whose values are not bound as they are: derived, transformable and
    /// external-storage attributes (an entity without any is written without looking further).
    let specialSlots: [Int: Set<Int>]
    /// Whether the model has uniqueness constraints (unique indexes): a save then inserts rows last.
    let hasUniqueIndexes: Bool
    /// The files of the save being written (under the writer lock).
    var saveFiles: SaveFiles?
    /// `NSPersistentHistoryTrackingKey`: saves and batch requests record persistent history.
    let tracksHistory: Bool
    /// Per table, the first column of each index the store makes on it (its own and the model's).
    let indexLeads: [String: Set<String>]
    /// How many `ZTOMBSTONE<k>` columns `ACHANGE` has (Store/SQLite/History/).
    var historyTombstoneWidth = 0

    /// Opens the store (see `SQLiteStore+Open.swift`); every failure is a `CoreDataError` naming the path.
    init(url: URL?, model: NSManagedObjectModel, options: StoreOpenOptions = StoreOpenOptions(), logger: Logger?) throws {
        self.model = model
        self.isReadOnly = options.readOnly
        self.tracksHistory = options.tracksHistory && !options.readOnly
        self.path = url?.path ?? ":memory:"
        let entities = try model.storedEntities(forConfigurationName: options.configuration)
        self.entities = entities
        let tables = TableInfo.stored(entities, of: model)
        self.tables = tables
        var insertSQL: [Int: String] = [:]
        for e in entities { insertSQL[e.layout.entityID] = Self.insertSQL(e.layout, table: tables[e.layout.rootEntityID]!) }
        self.insertSQL = insertSQL
        self.joinTables = JoinTableInfo.all(of: entities)
        let derived = try DerivedColumn.all(model, tables)
        self.derivedColumns = derived
        var derivedSlots: [Int: Set<Int>] = [:]
        for d in derived {
            for id in d.entityIDs { derivedSlots[id, default: []].insert(d.slot) }
        }
        self.derivedSlots = derivedSlots
        var special: [Int: Set<Int>] = derivedSlots
        for e in entities {
            for slot in e.layout.columnSlots {
                guard let a = e.layout.attribute(slot) else { continue }
                if a.attributeType == .transformableAttributeType || (a.attributeType == .binaryDataAttributeType && a.allowsExternalBinaryDataStorage) {
                    special[e.layout.entityID, default: []].insert(slot)
                }
            }
        }
        self.specialSlots = special
        let unique = ModelIndexes.unique(model, within: tables).map(\.index)
        self.hasUniqueIndexes = !unique.isEmpty
        self.indexLeads = Self.indexLeads(tables, ModelIndexes.indexes(entities) + unique)
        self.externalStorage = url.flatMap { SQLiteStoreKind.isNamedDevNull($0) ? nil : ExternalBinaryStorage(storeURL: $0) }
        let opened = try Self.open(url: url, model: model, tables: tables, options: options, logger: logger)
        connection = opened.writer
        readers = opened.readers.map { ($0, NSLock()) }
        identifier = opened.identifier
        metadata = opened.metadata
        usesJSONKeyLists = connection.hasJSON
        oneOwnerMembersSQL = Self.oneOwnerMembersSQL(self)
        rowShapes = RowShape.all(model, tables)
        if !isReadOnly { try prepareAttributes() }
        try prepareHistory()
    }

    private static func indexLeads(_ tables: [Int: TableInfo], _ modelIndexes: [SQLCreateIndex]) -> [String: Set<String>] {
        var leads: [String: Set<String>] = [:]
        let own = tables.values.flatMap(\.indexes).compactMap { change -> SQLCreateIndex? in
            if case .createIndex(let index) = change { return index }
            return nil
        }
        for index in own + modelIndexes {
            if let first = index.columns.first { leads[index.table, default: []].insert(first.name) }
        }
        return leads
    }

    /// Runs `body` on a reader connection (the writer for an in-memory store): the first one free, so
    /// that one thread's reads stay on one connection and its page cache (taking turns would make each
    /// query find the pages the previous one read in the other connection's cache); when both are busy,
    /// the next in turn, waiting for it. In `snapshot` instead when it is one of this store's query
    /// generations (a pinned context's read: ``StoreReadScope/snapshot``).
    func read<T>(in snapshot: (any StoreSnapshot)?, _ body: (SQLiteConnection) throws -> T) throws -> T {
        if let snapshot = snapshot as? SQLiteSnapshot, snapshot.store === self { return try snapshot.read(body) }
        guard !readers.isEmpty else { return try write(body) }
        for reader in readers where reader.lock.try() {
            defer { reader.lock.unlock() }
            return try body(reader.connection)
        }
        let index = readerCounter.withLock { () -> Int in
            nextReader = (nextReader + 1) % readers.count
            return nextReader
        }
        let reader = readers[index]
        return try reader.lock.withLock { try body(reader.connection) }
    }

    /// ``read(in:_:)`` of the store's current state.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try read(in: nil, body) }

    /// Runs `body` on a reader connection other than the first, if one is free now (`nil` otherwise):
    /// for work that holds its connection long (a batched fetch's key reader), leaving the first reader,
    /// which ``read(_:)`` tries first, to the contexts.
    func readIfIdle<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T? {
        for reader in readers.dropFirst() where reader.lock.try() {
            defer { reader.lock.unlock() }
            return try body(reader.connection)
        }
        return nil
    }

    /// The reader connections beside the writer (`NSPersistentStoreConnectionPoolMaxSizeKey`).
    var readerConnectionCount: Int { readers.count }

    /// The path (or URI) the reader connections opened; `nil` for an in-memory store.
    var readerPath: String? { readers.first?.connection.path }

    /// Runs `body` on the writer connection.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writerLock.withLock { try body(connection) }
    }

    /// Queries run so far on all connections.
    var queryCount: Int {
        writerLock.withLock { connection.queryCount } + readers.reduce(0) { sum, r in sum + r.lock.withLock { r.connection.queryCount } }
            + snapshotQueries.value
    }

    /// Runs `body` and returns the SQL text of the queries it ran on this store's connections, in order.
    func recordingSQL(_ body: () throws -> Void) rethrows -> [String] {
        let recorder = SQLRecorder()
        func set(_ value: SQLRecorder?) {
            writerLock.withLock { connection.recorder = value }
            for reader in readers { reader.lock.withLock { reader.connection.recorder = value } }
        }
        set(recorder)
        defer { set(nil) }
        try body()
        return recorder.recorded
    }

    /// For tests: what a batched fetch's key reader runs before it reads (``progressiveKeys(_:)``), to
    /// let other contexts save first.
    nonisolated(unsafe) var keyReaderGate: (@Sendable () -> Void)?

    /// The thread that reads batched fetches' keys (``progressiveKeys(_:)``), one fetch at a time.
    let keyReader = SQLiteKeyReader()

    /// The queries of the store's snapshot connections (query generations, batched fetches' key readers).
    let snapshotQueries = QueryTally()

    /// What ``recordingSQL(_:)`` records into now, if it runs (for connections opened meanwhile).
    var currentRecorder: SQLRecorder? { writerLock.withLock { connection.recorder } }

    func table(for layout: EntityLayout) -> TableInfo { tables[layout.rootEntityID]! }

    // MARK: - Fetching

    /// The SQLite text of a statement and the values bound to it, in placeholder order.
    func sql(_ select: SQLSelect) -> (String, [Value]) {
        var context = SQLGenerationContext()
        let text = SQLitePrinter.sql(select, &context)
        return (text, context.arguments)
    }

    /// The `SELECT` of a fetch (see ``SQLSelect/init(fetching:_:limited:)``): `selection`, or every
    /// column of the objects' rows when `nil`; `LIMIT`/`OFFSET` when `limited`.
    func selectSQL(_ plan: FetchPlan, _ selection: FetchSelection? = nil, limited: Bool) throws -> (String, [Value]) {
        sql(try SQLSelect(fetching: plan, selection ?? .objects(table(for: plan.layout).selectColumns), limited: limited))
    }

    /// The rows of a fetch. A fetch of every matching row (no `fetchLimit`) sorted first by a column an
    /// index of the table begins with is read in table order and sorted (``SQLSelect/sortsWithoutIndex``):
    /// following the index would read the table one row at a time in the index's order, which at 1M rows
    /// takes about twice as long as reading it through and sorting (Benchmarks/README.md, figure 4). A
    /// fetch with a limit, a batched fetch's keys and a count still use the index.
    func fetchRows(_ plan: FetchPlan, withValues: Bool, limited: Bool, in scope: StoreReadScope) throws -> [StoreRow] {
        let table = self.table(for: plan.layout)
        var select = try SQLSelect(fetching: plan, .objects(withValues ? table.selectColumns : table.keyColumns), limited: limited)
        if select.limit == nil, let first = select.orderBy.first, case .column(_, let column)? = Self.sortedColumn(first.expression),
           indexLeads[table.name]?.contains(column) == true {
            select.sortsWithoutIndex = true
        }
        let (sql, arguments) = self.sql(select)
        var rows: [StoreRow] = []
        try wrap {
            try read(in: scope.snapshot) { db in
                try db.query(sql, arguments) { row in
                    let entityID = table.entityID { row.int64($0) }
                    rows.append(StoreRow(pk: row.int64(0), entityID: entityID, version: row.int64(table.versionColumn),
                                         values: withValues ? values(of: row, entityID: entityID, table: table) : nil))
                }
            }
        }
        return rows
    }

    /// The column a sort term sorts by, if it is one (with or without a collation).
    private static func sortedColumn(_ expression: SQLExpression) -> SQLExpression? {
        switch expression {
        case .column: return expression
        case .collate(let inner, _): return sortedColumn(inner)
        default: return nil
        }
    }

    /// A batched fetch's first query: the keys in the plan's order, with each row's entity number when
    /// the entity has subentities.
    func keysSQL(_ plan: FetchPlan) throws -> (sql: String, arguments: [Value]) {
        let columns = plan.layout.entityIDs.count > 1 ? [FetchSelection.key, FetchSelection.entity] : [FetchSelection.key]
        return try selectSQL(plan, .objects(columns), limited: true)
    }

    func fetchKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> (pks: [Int64], entityRuns: [EntityRun]) {
        let mixed = plan.layout.entityIDs.count > 1
        let (sql, arguments) = try keysSQL(plan)
        var pks: [Int64] = []
        var runs: [EntityRun] = mixed ? [] : [EntityRun(start: 0, entityID: plan.layout.entityID)]
        try wrap {
            try read(in: scope.snapshot) { db in
                try db.query(sql, arguments) { row in
                    if mixed {
                        let entityID = Int(row.int64(1))
                        if runs.last?.entityID != entityID { runs.append(EntityRun(start: pks.count, entityID: entityID)) }
                    }
                    pks.append(row.int64(0))
                }
            }
        }
        return (pks, runs)
    }

    /// A row's values by storage slot, read by its entity's ``RowShape`` (numbers and column positions
    /// only: nothing per row touches the model's objects).
    func values(of row: SQLiteStatement, entityID: Int, table: TableInfo) -> [Value] {
        guard entityID >= 0, entityID < rowShapes.count, let shape = rowShapes[entityID] else { return [] }
        var values: [Value] = []
        values.reserveCapacity(shape.slots.count)
        for (i, attribute) in shape.attributeColumns.enumerated() {
            if let (column, type) = attribute {
                values.append(row.value(column, as: type))
                continue
            }
            switch shape.slots[i] {
            case .attribute:
                preconditionFailure("a plain attribute is read through attributeColumns")
            case .fixed(let value):
                values.append(value)
            case .transformed(let column, let transform):
                guard case .data(let data) = row.value(column, as: .binaryDataAttributeType) else { values.append(.null); continue }
                guard let value = transform.value(for: data) else {
                    storeLogger.error("CoreData: error: \(transform.attribute.entity?.name ?? "?").\(transform.attribute.name): the value transformer \(transform.attribute.transformerNameForMessages) cannot make a value of the stored data (\(data.count) bytes); reading nil")
                    values.append(.null)
                    continue
                }
                values.append(value)
            case .external(let column):
                guard row.isText(column), case .string(let name) = row.value(column, as: .stringAttributeType) else {
                    values.append(row.value(column, as: .binaryDataAttributeType))
                    continue
                }
                guard let data = externalStorage?.read(name) else {
                    storeLogger.error("CoreData: error: the external binary value \(name) is missing from \(externalStorage?.directory.path ?? "?"); reading nil")
                    values.append(.null)
                    continue
                }
                values.append(.data(data))
            case .toOne(let column, let entityColumn, let entity, let root):
                guard !row.isNull(column) else {
                    values.append(.null)
                    continue
                }
                var number = entity
                if let entityColumn, !row.isNull(entityColumn) { number = Int(row.int64(entityColumn)) }
                values.append(ObjectRef(key: .permanent(root: root, pk: row.int64(column)), entityID: number).value)
            }
        }
        return values
    }

    /// A value that changes whenever a save changes the store, from Core Data's own bookkeeping (the
    /// controller's cache records it): the sum of the hierarchies' `Z_MAX` (an insert takes a new key),
    /// and per entity table its row count (a delete) and the sum of a hash of each row's `Z_PK` and
    /// `Z_OPT` (an update raises `Z_OPT`, as Core Data's saves do). Read in one statement, so in one
    /// snapshot. It sees saves made by Core Data on another platform too.
    func generation() throws -> String {
        let rowHash = "((Z_PK % 4294967291) * 1000003 + Z_OPT) % 4294967291 * 1640531527 % 4294967291"
        let parts = ["(SELECT ifnull(sum(Z_MAX), 0) FROM Z_PRIMARYKEY)"] + tables.values.sorted(by: { $0.name < $1.name }).map {
            "(SELECT count(*) || '/' || ifnull(sum(\(rowHash)), 0) FROM \($0.name))"
        }
        var value = ""
        try wrap { try read { db in try db.query("SELECT " + parts.joined(separator: " || ':' || ")) { row in
            if case .string(let s) = row.value(0, as: .stringAttributeType) { value = s }
        } } }
        return value
    }

    /// `SELECT COUNT(*)` of the matches, unordered; of the ordered window when the plan has a limit or offset.
    func countSQL(_ plan: FetchPlan) throws -> (String, [Value]) {
        try selectSQL(plan, .count, limited: true)
    }

    func count(_ plan: FetchPlan, in scope: StoreReadScope) throws -> Int {
        let (sql, arguments) = try countSQL(plan)
        var count = 0
        try wrap { try read(in: scope.snapshot) { db in try db.query(sql, arguments) { count = Int($0.int64(0)) } } }
        return count
    }

    /// Rows by key (for faults and prefetching), one query per hierarchy (see ``SQLiteKeyList``).
    func loadRows(_ keys: [ObjectKey], in scope: StoreReadScope) throws -> [ObjectKey: StoreRow] {
        var byRoot: [Int: [Int64]] = [:]
        for case .permanent(let root, let pk) in keys { byRoot[root, default: []].append(pk) }
        var result: [ObjectKey: StoreRow] = [:]
        result.reserveCapacity(keys.count)
        for (root, pks) in byRoot {
            for row in try loadRows(root: root, pks: pks, in: scope) { if let row { result[.permanent(root: root, pk: row.pk)] = row } }
        }
        return result
    }

    /// The rows of some keys of one hierarchy, in the keys' order (`nil` for a row that is gone), in one
    /// query (see ``SQLiteKeyList``; many keys in ascending order that fill most of their range: the
    /// range, see ``denseRange(_:)``).
    func loadRows(root: Int, pks: [Int64], in scope: StoreReadScope) throws -> [StoreRow?] {
        var result = [StoreRow?](repeating: nil, count: pks.count)
        try wrap { try read(in: scope.snapshot) { db in try loadRows(root: root, pks: pks, db) { result[$0] = $1 } } }
        return result
    }

    /// Rows by key on a given connection (inside a write transaction).
    func loadRows(root: Int, pks: [Int64], _ db: SQLiteConnection) throws -> [Int64: StoreRow] {
        var result: [Int64: StoreRow] = [:]
        try loadRows(root: root, pks: pks, db) { result[$1.pk] = $1 }
        return result
    }

    /// `SELECT` of the table's columns for the keys of `chunk`: a JSON key list joined (each row ends
    /// with its key's position, `k.key`), else `WHERE t0.Z_PK IN (?, …)`.
    func loadRowsSQL(root: Int, _ chunk: SQLiteKeyList.Chunk) -> String {
        let table = tables[root]!
        if chunk.isJSON {
            return "SELECT \(table.selectList), k.key FROM \(SQLiteKeyList.joined) JOIN \(table.name) t0 ON t0.Z_PK = k.value"
        }
        return "SELECT \(table.selectList) FROM \(table.name) t0 WHERE t0.Z_PK IN \(chunk.inOperand)"
    }

    /// `SELECT` of the table's columns for the keys from `low` through `high`, in key order.
    func loadRangeSQL(root: Int) -> String {
        let table = tables[root]!
        return "SELECT \(table.selectList) FROM \(table.name) t0 WHERE t0.Z_PK BETWEEN ? AND ? ORDER BY t0.Z_PK"
    }

    /// The first and last of at least ``denseRangeMinimum`` keys given in ascending order that fill at
    /// least a quarter of the range between them: reading that range row by row costs SQLite less than
    /// looking each key up (prefetching a to-one whose destinations are most of a table); `nil` otherwise.
    static func denseRange(_ pks: [Int64]) -> (low: Int64, high: Int64)? {
        guard pks.count >= denseRangeMinimum, let low = pks.first, let high = pks.last, low >= 0 else { return nil }
        for i in 1..<pks.count where pks[i] <= pks[i - 1] { return nil }
        return high - low < Int64(pks.count) * 4 ? (low, high) : nil
    }

    /// The fewest keys read as a range (``denseRange(_:)``).
    static let denseRangeMinimum = 256

    /// Calls `body` with each row and the position of its key in `pks`.
    private func loadRows(root: Int, pks: [Int64], _ db: SQLiteConnection, _ body: (Int, StoreRow) -> Void) throws {
        guard let table = tables[root], !pks.isEmpty else { return }
        if let range = Self.denseRange(pks) {
            // Rows come in key order, as the keys are: each row is matched by walking the keys.
            var i = 0
            try db.query(loadRangeSQL(root: root), [.int(range.low), .int(range.high)]) { row in
                let pk = row.int64(0)
                while i < pks.count, pks[i] < pk { i += 1 }
                guard i < pks.count, pks[i] == pk else { return }
                let entityID = table.entityID { row.int64($0) }
                body(i, StoreRow(pk: pk, entityID: entityID, version: row.int64(table.versionColumn), values: values(of: row, entityID: entityID, table: table)))
            }
            return
        }
        let position = table.endOfSelectList
        for chunk in SQLiteKeyList(pks, json: usesJSONKeyLists).chunks {
            let positions = chunk.isJSON || chunk.range.count == 1 ? [:] : SQLiteKeyList.positions(pks, chunk)
            try db.query(loadRowsSQL(root: root, chunk), chunk.arguments) { row in
                let entityID = table.entityID { row.int64($0) }
                let pk = row.int64(0)
                let index = chunk.isJSON ? Int(row.int64(position)) : positions[pk] ?? chunk.range.lowerBound
                body(index, StoreRow(pk: pk, entityID: entityID, version: row.int64(table.versionColumn), values: values(of: row, entityID: entityID, table: table)))
            }
        }
    }

    /// Turns SQLite failures into Core Data errors carrying the SQL.
    func wrap(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as SQLiteError {
            throw error.coreDataError
        }
    }
}

/// How to read one entity's rows of its table into values by storage slot, made once when the store
/// opens: each slot's column position and type, or its fixed value.
final class RowShape {
    enum Slot {
        /// An attribute's column and type.
        case attribute(Int32, NSAttributeType)
        /// A transformable attribute's column (data), turned into its value by the attribute's transformer.
        case transformed(Int32, AttributeTransform)
        /// A binary attribute with external storage: a BLOB in the row, or TEXT naming its file.
        case external(Int32)
        /// A value every row has here: a transient attribute's default, nil, or a to-many fault.
        case fixed(Value)
        /// A to-one's key column, the column of the destination's entity number (when the destination
        /// has subentities), and the destination's entity number and hierarchy root.
        case toOne(Int32, entityColumn: Int32?, entity: Int, root: Int)
    }
    let slots: [Slot]
    /// Each slot's column and type when it is a plain attribute, else `nil`: trivial values, so that the
    /// per-row loop reads them without copying a ``Slot`` (an enum whose other payloads are counted
    /// references: copying one per column cost about a tenth of a large fetch).
    let attributeColumns: [(column: Int32, type: NSAttributeType)?]

    init(layout: EntityLayout, positions: [Int32?], entityColumns: [Int: Int32]) {
        let slots: [Slot] = positions.indices.map { slot in
            switch layout.kinds[slot] {
            case .attribute(let type):
                guard let column = positions[slot] else { return .fixed(layout.defaultValues[slot]) }
                if type == .transformableAttributeType, let a = layout.attribute(slot) { return .transformed(column, AttributeTransform(attribute: a)) }
                if type == .binaryDataAttributeType, layout.attribute(slot)?.allowsExternalBinaryDataStorage == true { return .external(column) }
                return .attribute(column, type)
            case .toOne(let r):
                guard let column = positions[slot] else { return .fixed(.null) }
                return .toOne(column, entityColumn: entityColumns[slot], entity: r.destinationEntityID, root: r.destinationRootID)
            case .toMany:
                return .fixed(ToManyFault.value)
            }
        }
        self.slots = slots
        attributeColumns = slots.map { slot in
            if case .attribute(let column, let type) = slot { return (column, type) }
            return nil
        }
    }

    /// A shape for every entity of the model, indexed by entity number.
    static func all(_ model: NSManagedObjectModel, _ tables: [Int: TableInfo]) -> [RowShape?] {
        let largest = model.entities.map { $0.layout.entityID }.max() ?? 0
        var shapes = [RowShape?](repeating: nil, count: largest + 1)
        for entity in model.entities {
            let layout = entity.layout!
            guard let table = tables[layout.rootEntityID], let positions = table.slotPositions[layout.entityID] else { continue }
            shapes[layout.entityID] = RowShape(layout: layout, positions: positions, entityColumns: table.entityColumnPositions[layout.entityID] ?? [:])
        }
        return shapes
    }
}

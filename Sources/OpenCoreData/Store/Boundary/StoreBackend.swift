import Foundation

/// The one way into a store: what the coordinator asks of it. The SQLite store is the first conformer;
/// everything outside Store/ reaches a store through the coordinator, which owns the row cache.
///
/// Rows and changes are named by ``ObjectKey`` (hierarchy root + primary key), never by position, so a
/// save's writes need not map one-to-one onto objects. Every read takes the scope it reads in
/// (``StoreReadScope``): the query generation to read and the context reading, as an argument.
package protocol StoreBackend: AnyObject, Sendable {
    /// The store's UUID (`NSStoreUUID`).
    var identifier: String { get }
    /// True for a store added with `NSReadOnlyPersistentStoreOption`: saves throw before writing.
    var isReadOnly: Bool { get }
    /// Queries run so far (tests count them).
    var queryCount: Int { get }

    /// The rows matching a plan, in the plan's order; with `limited`, only the plan's window
    /// (`fetchLimit`/`fetchOffset`). Without `withValues`, keys, entities and versions only.
    func fetchRows(_ plan: FetchPlan, withValues: Bool, limited: Bool, in scope: StoreReadScope) throws -> [StoreRow]
    /// The primary keys matching a plan, in the plan's order, and the rows' entity numbers as runs (the
    /// first row of each run of rows of one entity). A batched fetch's first query: no versions, no
    /// per-row structure beyond the key.
    func fetchKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> (pks: [Int64], entityRuns: [EntityRun])
    /// The rows of some keys, with values (missing keys are rows that are gone).
    func loadRows(_ keys: [ObjectKey], in scope: StoreReadScope) throws -> [ObjectKey: StoreRow]
    /// The rows of some keys of one hierarchy (`root`), in the keys' order (`nil` for a row that is gone).
    func loadRows(root: Int, pks: [Int64], in scope: StoreReadScope) throws -> [StoreRow?]
    /// The objects a to-many relationship holds for each of some owners, in the relationship's order,
    /// each once.
    func loadRelationship(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [Int64: [ObjectRef]]
    /// The objects a to-many relationship holds for one owner, in the relationship's order, each once.
    func loadRelationship(_ r: RelationshipLayout, owner: Int64, in scope: StoreReadScope) throws -> [ObjectRef]
    /// The rows of a to-many relationship's members for some owners, each with its owner's position in
    /// `owners`, in the relationship's order per owner when it is ordered (prefetching).
    func prefetchToMany(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [(owner: Int, row: StoreRow)]
    /// The number of matches of a plan (of its window when it has one).
    func count(_ plan: FetchPlan, in scope: StoreReadScope) throws -> Int
    /// A dictionary-result fetch: each row's values in the plan's column order, handed to `row` in a
    /// buffer the store reuses for the next row.
    func fetchColumns(_ plan: FetchPlan, _ columns: DictionaryColumns, in scope: StoreReadScope, row: ([Value]) throws -> Void) throws
    /// Reserves `count` primary keys of a hierarchy.
    func allocateKeys(root: Int, count: Int) throws -> [Int64]
    /// Writes a changeset in one transaction. Rows whose version changed since the object read them
    /// are handed to `resolve` inside the transaction; it decides each (or throws, and nothing is
    /// written), and the store writes the outcome before committing.
    func save(_ changes: StoreChanges, resolve: ([StoreConflict]) throws -> [ObjectKey: ConflictResolution]) throws -> StoreSaveOutcome
    /// A value that changes with every save that changes the store (the controller's cache compares it).
    func generation() throws -> String
    /// Permanent keys for some inserted objects of one hierarchy (`obtainPermanentIDs(for:)`).
    func permanentKeys(for objects: [NSManagedObject], root: Int) throws -> [Int64]
    /// Whether saves must name their objects (``StoreChanges/insertedObjects``), which then have permanent
    /// IDs before the store is written: custom stores hand the objects to the app's store class.
    var needsSavedObjects: Bool { get }
    /// Whether the coordinator's row cache may keep this store's rows (not for an incremental store,
    /// whose nodes are asked of the app's store class every time).
    var usesRowCache: Bool { get }
    /// Whether a save is one transaction the store can roll back until it commits (a save that spans
    /// stores writes these first, and the app's atomic and incremental stores, which cannot, last).
    var isTransactional: Bool { get }
    /// Whether the store cannot evaluate a plan's predicate or sorts exactly as memory does (PostgreSQL's
    /// string operations): the context then reads the entity's rows unfiltered and unordered, and judges
    /// and sorts the objects in memory (``FetchPlan/evaluatesInMemory``).
    func needsEvaluationInMemory(_ plan: FetchPlan) -> Bool
}

extension StoreBackend {
    func permanentKeys(for objects: [NSManagedObject], root: Int) throws -> [Int64] {
        try allocateKeys(root: root, count: objects.count)
    }
    var needsSavedObjects: Bool { false }
    var usesRowCache: Bool { true }
    var isTransactional: Bool { false }
    func needsEvaluationInMemory(_ plan: FetchPlan) -> Bool { false }
}

/// One row as a store hands it over: its key, entity number, row version (`Z_OPT`) and, when asked,
/// its values by storage slot.
package struct StoreRow: Sendable {
    let pk: Int64
    let entityID: Int
    let version: Int64
    let values: [Value]?
}

/// Rows `start...` (up to the next run) of a key fetch are of entity `entityID`.
package struct EntityRun: Sendable {
    let start: Int
    let entityID: Int
}

/// What a save writes. Every change carries the key of its object.
package struct StoreChanges {
    /// An object saved for the first time; `key` is temporary unless `obtainPermanentIDs` ran, and `nil`
    /// when the object was never given one (then nothing names it).
    struct Insert { let key: ObjectKey?; let layout: EntityLayout; let values: [Value] }
    /// `values` are the object's, `snapshot` what it read at row version `version`.
    struct Update { let key: ObjectKey; let layout: EntityLayout; let values: [Value]; let snapshot: [Value]; let version: Int64 }
    struct Delete { let key: ObjectKey; let layout: EntityLayout; let version: Int64 }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    /// The inserted, updated and deleted objects, in the order of the changes: only for a store
    /// that asks for them (``StoreBackend/needsSavedObjects``).
    /// Who saves (the context's `transactionAuthor` and `name`), for persistent history.
    var origin = HistoryOrigin()
    var insertedObjects: [NSManagedObject] = []
    var updatedObjects: [NSManagedObject] = []
    var deletedObjects: [NSManagedObject] = []
    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
    /// Run by the store once everything is written, just before it commits (inside the transaction):
    /// a save that spans stores writes the next store here, so that a store whose write fails rolls
    /// every store back. Throwing writes nothing.
    var beforeCommit: (() throws -> Void)?
    /// Whether a row may name another object (only rows with relationships do), so that keys of inserted
    /// objects must be resolved or renamed.
    var holdsReferences: Bool {
        inserts.contains { !$0.layout.relationshipSlots.isEmpty } || updates.contains { !$0.layout.relationshipSlots.isEmpty }
    }
    /// The keys inserted objects had at save time and the store keys they now have (`primaryKeys`, in
    /// the order of ``inserts``), for the rows that name them: empty when no row holds references.
    func renaming(_ primaryKeys: [Int64]) -> KeyRenaming {
        guard holdsReferences else { return KeyRenaming([]) }
        return KeyRenaming(zip(inserts, primaryKeys).compactMap { insert, pk in
            insert.key.map { ($0, ObjectKey.permanent(root: insert.layout.rootEntityID, pk: pk)) }
        })
    }
}

/// An optimistic-locking failure the store found: the row changed, or is gone (`current == nil`), since
/// the object read it at `objectVersion`.
package struct StoreConflict {
    let key: ObjectKey
    let isDelete: Bool
    let current: StoreRow?
    let objectVersion: Int64
}

/// How a conflict is settled, decided by the context's merge policy.
package enum ConflictResolution {
    /// Write `values` where they differ from `snapshot`, the row being at `version` now.
    case write(values: [Value], snapshot: [Value], version: Int64)
    /// The row is gone: write the object's values as a new row under its key.
    case reinsert(values: [Value])
    /// Delete the row, which is at `version` now.
    case delete(version: Int64)
    /// Write nothing: the store's state stands (the object takes it, or forgets a deleted row).
    case keepStore
}

/// What a save did, by key: the keys given to inserted objects, and the row now in the store for every
/// updated or conflicting object (`nil`: the row is gone).
package struct StoreSaveOutcome {
    /// The primary key of each insert, in the order of `StoreChanges.inserts` (an array, not a dictionary
    /// by key: a large import would hash every key several times).
    var insertedPrimaryKeys: [Int64] = []
    /// The inserted objects' keys at save time and their store keys, for every reference to them
    /// (``StoreChanges/renaming(_:)``; empty when no written row holds references).
    var renaming = KeyRenaming([])
    var rows: [ObjectKey: StoreRow?] = [:]
    /// Rows whose derived attributes the store recomputed in this save, as they are now, by permanent
    /// key (inserted, updated, and rows the save did not write whose sources changed).
    var derivedRows: [ObjectKey: StoreRow] = [:]
}

/// The columns of a dictionary-result fetch, resolved against the model (Fetching/).
package struct DictionaryColumns {
    enum Column {
        /// An attribute, of the entity or through to-one relationships (`classification.family`).
        case keyPath(ResolvedKeyPath)
        /// A to-one relationship's destination, read back as an ``ObjectRef`` value (`nil`: none).
        case object(ResolvedKeyPath)
        /// `sum:`, `min:`, `max:`, `average:` or `count:` of an attribute, read back as `type`.
        case aggregate(function: String, ResolvedKeyPath, type: NSAttributeType)
    }
    let columns: [Column]
    let distinct: Bool
    /// `propertiesToGroupBy` (attributes and to-one relationships).
    let groupBy: [Column]?
    /// `havingPredicate`, checked: its names are keys of `names`.
    var having: Having? = nil

    /// A `havingPredicate` and what each name it uses stands for: a grouped or fetched key path, or an
    /// expression description's aggregate.
    struct Having {
        let predicate: PredicateNode
        let names: [String: Column]
    }
}

/// Temporary keys of a save's inserted objects and the keys the store gave them, applied to the
/// references values hold.
package struct KeyRenaming {
    private let map: [ObjectKey: ObjectKey]
    init(_ pairs: [(ObjectKey, ObjectKey)]) { map = Dictionary(pairs, uniquingKeysWith: { a, _ in a }) }
    /// Both renamings (of two stores' saves: their keys never meet).
    func merging(_ other: KeyRenaming) -> KeyRenaming {
        other.isEmpty ? self : KeyRenaming(map.map { ($0.key, $0.value) } + other.map.map { ($0.key, $0.value) })
    }
    var isEmpty: Bool { map.isEmpty }
    /// The same renaming with each new key's root changed by `root` (a store's tag put in).
    func mappingNewRoots(_ root: (Int) -> Int) -> KeyRenaming {
        KeyRenaming(map.map { old, new in
            guard case .permanent(let r, let pk) = new else { return (old, new) }
            return (old, .permanent(root: root(r), pk: pk))
        })
    }

    /// The store key an inserted object's key at save time became.
    subscript(key: ObjectKey) -> ObjectKey? { map[key] }

    func apply(_ ref: ObjectRef) -> ObjectRef {
        map[ref.key].map { ObjectRef(key: $0, entityID: ref.entityID) } ?? ref
    }

    func apply(_ value: Value) -> Value {
        switch value {
        case .object:
            guard let ref = value.objectRef, map[ref.key] != nil else { return value }
            return apply(ref).value
        case .collection:
            guard let members = value.toManyMembers, members.refs.contains(where: { map[$0.key] != nil }) else { return value }
            return ToManyMembers(members.refs.map(apply), ordered: members.isOrdered).value
        default:
            return value
        }
    }

    /// The values of a row of `layout` with its relationship slots renamed.
    func apply(_ values: [Value], _ layout: EntityLayout?) -> [Value] {
        guard !map.isEmpty, let layout, !layout.relationshipSlots.isEmpty, values.count == layout.kinds.count else { return values }
        var values = values
        for slot in layout.relationshipSlots { values[slot] = apply(values[slot]) }
        return values
    }
}

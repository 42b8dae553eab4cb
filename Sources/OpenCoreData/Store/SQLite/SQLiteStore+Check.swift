import Foundation

/// What the checks of an existing store found (nothing is written while checking).
struct ExistingStore {
    let identifier: String
    let metadata: [String: Any]
    /// Written by OpenCoreData before it wrote Core Data's metadata (see `SQLiteStore+Upgrade.swift`).
    let legacy: LegacyStore?
    /// The migration to the model, when the store was made with another one and the options ask for
    /// lightweight migration (nothing is migrated while checking).
    var migration: InPlaceMigration? = nil
}

extension SQLiteStore {
    /// Checks a store file before anything is written to it: its metadata is a property list of a
    /// framework version we know (or the store opens read-only), its version hashes are the model's
    /// (else `NSPersistentStoreIncompatibleVersionHashError`), `Z_PRIMARYKEY` numbers the entities as the
    /// model does and its `Z_MAX` is at least each table's largest key, and every table and column the
    /// model needs is there. Each failure names the file and what is wrong. With `migrating` (lightweight
    /// migration asked for), a store made with another model gets its migration planned instead
    /// (``InPlaceMigration/plan(metadata:model:tables:path:knownSource:)``), or the reason it cannot be migrated.
    static func checkExisting(_ db: SQLiteConnection, model: NSManagedObjectModel, tables: [Int: TableInfo],
                              options: StoreOpenOptions, migrating: Bool = false) throws -> ExistingStore {
        let path = db.path, readOnly = options.readOnly
        if let legacy = try LegacyStore.read(db, model: model) {
            if readOnly, legacy.needsRenumbering {
                throw CoreDataError(NSPersistentStoreOpenError,
                                    "The store at \(path) was written by an earlier OpenCoreData whose entity numbers differ from Core Data's; open it once without NSReadOnlyPersistentStoreOption to upgrade it.",
                                    userInfo: [NSFilePathErrorKey: path])
            }
            return ExistingStore(identifier: legacy.uuid, metadata: StoreMetadata.plist(for: model).merging([NSStoreUUIDKey: legacy.uuid]) { a, _ in a },
                                 legacy: legacy)
        }
        let metadata = try StoreMetadata.read(db, path: path)
        try checkFrameworkVersion(metadata, path: path, readOnly: readOnly)
        guard options.ignoresVersioning || model.isConfiguration(withName: options.configuration, compatibleWithStoreMetadata: metadata) else {
            guard migrating, !readOnly else { throw CoreDataError.incompatibleModel(metadata, model: model, path: path) }
            guard let uuid = metadata[NSStoreUUIDKey] as? String else { throw StoreMetadata.unreadable(path, "Z_METADATA.Z_UUID is empty") }
            let migration = try InPlaceMigration.plan(metadata: metadata, model: model, tables: tables, path: path, knownSource: options.knownSource)
            return ExistingStore(identifier: uuid, metadata: metadata, legacy: nil, migration: migration)
        }
        try checkPrimaryKeys(db, model: model, tables: tables)
        try checkColumns(db, model: model, tables: tables)
        guard let uuid = metadata[NSStoreUUIDKey] as? String else { throw StoreMetadata.unreadable(path, "Z_METADATA.Z_UUID is empty") }
        return ExistingStore(identifier: uuid, metadata: metadata, legacy: nil)
    }

    /// A store written by a newer Core Data than the one whose format we follow may hold what we do not
    /// know how to keep (Core Data itself records the version and does not refuse newer stores): it
    /// opens read-only, and a writable open is refused, naming both versions.
    static func checkFrameworkVersion(_ metadata: [String: Any], path: String, readOnly: Bool) throws {
        let version = StoreMetadata.frameworkVersion(of: metadata)
        guard version > StoreMetadata.frameworkVersion, !readOnly else { return }
        throw CoreDataError(NSPersistentStoreOpenError,
                            "The store at \(path) was written by a newer Core Data (NSPersistenceFrameworkVersion \(version); OpenCoreData writes \(StoreMetadata.frameworkVersion)): it can be opened read-only (NSReadOnlyPersistentStoreOption), not written; it was left untouched.",
                            userInfo: [NSFilePathErrorKey: path, StoreMetadata.frameworkVersionKey: version])
    }


    /// `Z_PRIMARYKEY` has each entity under the model's number (by name, or by the entity's
    /// `renamingIdentifier`) with its superentity's number, and each hierarchy's `Z_MAX` is at least its
    /// table's largest `Z_PK` (a smaller one would hand out keys that rows already have).
    static func checkPrimaryKeys(_ db: SQLiteConnection, model: NSManagedObjectModel, tables: [Int: TableInfo]) throws {
        var rows: [Int: (name: String, parent: Int64, max: Int64)] = [:]
        try db.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY") { row in
            let name: String = if case .string(let s) = row.value(1, as: .stringAttributeType) { s } else { "" }
            rows[Int(row.int64(0))] = (name, row.int64(2), row.int64(3))
        }
        for e in model.entities where tables[e.layout.rootEntityID] != nil {
            let number = e.layout.entityID, name = e.name ?? ""
            guard let row = rows[number], row.name == name || row.name == e.renamingIdentifier,
                  row.parent == Int64(e.superentity?.layout.entityID ?? 0) else {
                throw damaged(db.path, "Z_PRIMARYKEY does not number entity \(name) \(number) (under \(e.superentity?.name ?? "no superentity")) as the model does")
            }
        }
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            // One statement, one snapshot: another process may be saving meanwhile.
            var (largest, max): (Int64, Int64) = (0, 0)
            try db.query("SELECT (SELECT ifnull(max(Z_PK), 0) FROM \(table.name)), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?)",
                         [.int(Int64(table.rootEntityID))]) { (largest, max) = ($0.int64(0), $0.int64(1)) }
            guard largest <= max else {
                throw damaged(db.path, "Z_PRIMARYKEY.Z_MAX of \(rows[table.rootEntityID]?.name ?? "?") is \(max), lower than the largest key in \(table.name) (\(largest))")
            }
        }
    }

    /// Every table and column the model reads is in the file.
    static func checkColumns(_ db: SQLiteConnection, model: NSManagedObjectModel, tables: [Int: TableInfo]) throws {
        var expected: [(String, [String])] = tables.values.map { ($0.name, ["Z_PK", "Z_ENT", "Z_OPT"] + $0.columns.map(\.name)) }
        for join in TableInfo.joinTables(of: model, within: tables) {
            expected.append((join.name, [join.sourceColumn, join.destinationColumn] + [join.orderColumn, join.otherOrderColumn].compactMap { $0 }))
        }
        for (table, columns) in expected.sorted(by: { $0.0 < $1.0 }) {
            var present = Set<String>()
            try db.query("SELECT name FROM pragma_table_info(?)", [.string(table)]) { row in
                if case .string(let s) = row.value(0, as: .stringAttributeType) { present.insert(s.uppercased()) }
            }
            guard !present.isEmpty else { throw damaged(db.path, "the table \(table) is missing") }
            if let missing = columns.first(where: { !present.contains($0.uppercased()) }) {
                throw damaged(db.path, "the table \(table) has no column \(missing)")
            }
        }
    }

    static func damaged(_ path: String, _ what: String) -> CoreDataError {
        CoreDataError(NSPersistentStoreInvalidTypeError, "The store at \(path) does not have the layout its model needs: \(what); it was left untouched.",
                      userInfo: [NSFilePathErrorKey: path])
    }
}

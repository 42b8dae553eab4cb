import Foundation

/// Mirrors `NSPersistentStoreDeferredLightweightMigrationOptionKey`. Added with a store (true), a
/// lightweight migration of that store keeps the tables it replaced instead of dropping them (the cleanup
/// Core Data defers) and records the key, true, in the store's metadata until
/// `finishDeferredLightweightMigration()` (or one `finishDeferredLightweightMigrationTask()` per table) has
/// dropped them. The kept tables are named `Z_OCDMIGRATING_<table>`; the next migration of the store drops
/// any that are left before it starts.
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"

/// The tables a deferred migration left, and their removal.
enum DeferredMigrationCleanup {
    static let prefix = "Z_OCDMIGRATING_"

    /// The tables a migration kept for later, in name order.
    static func leftovers(_ db: SQLiteConnection) throws -> [String] {
        var names: [String] = []
        try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_OCDMIGRATING\\_%' ESCAPE '\\' ORDER BY name") { row in
            if case .string(let name) = row.value(0, as: .stringAttributeType) { names.append(name) }
        }
        return names
    }
}

extension SQLiteStore {
    /// Drops what a deferred migration left, one table or all of them, in one transaction; when none is
    /// left the metadata loses ``NSPersistentStoreDeferredLightweightMigrationOptionKey``. Returns whether
    /// any was left to drop, and whether some is still left.
    func finishDeferredMigration(all: Bool) throws -> (dropped: Bool, pending: Bool) {
        if isReadOnly { throw readOnlyError("finish a deferred migration") }
        var dropped = false, pending = false
        try wrap {
            try write { db in
                try db.transaction {
                    let left = try DeferredMigrationCleanup.leftovers(db)
                    for table in all ? left : Array(left.prefix(1)) {
                        try db.execute("DROP TABLE \(table)")
                        dropped = true
                    }
                    pending = !all && left.count > 1
                    if left.count <= 1 || all {
                        var metadata = try StoreMetadata.read(db, path: path)
                        guard metadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] != nil else { return }
                        metadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] = nil
                        try StoreMetadata.write(metadata, uuid: nil, db)
                    }
                }
            }
        }
        return (dropped, pending)
    }
}

extension NSPersistentStoreCoordinator {
    /// Mirrors `finishDeferredLightweightMigration()`: drops every table the deferred migrations of this
    /// coordinator's SQLite stores kept, and removes the metadata key that says work is pending. With nothing
    /// pending it does nothing.
    public func finishDeferredLightweightMigration() throws {
        for store in persistentStores {
            guard let sqlite = store.backend as? SQLiteStore else { continue }
            if try sqlite.finishDeferredMigration(all: true).dropped { store.noteDeferredMigration(pending: false) }
        }
    }

    /// Mirrors `finishDeferredLightweightMigrationTask()`: drops one table a deferred migration kept (of the
    /// first store that has one); the metadata key goes with the last.
    public func finishDeferredLightweightMigrationTask() throws {
        for store in persistentStores {
            guard let sqlite = store.backend as? SQLiteStore else { continue }
            let (dropped, pending) = try sqlite.finishDeferredMigration(all: false)
            if dropped {
                store.noteDeferredMigration(pending: pending)
                return
            }
        }
    }
}

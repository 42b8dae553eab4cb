import Foundation

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
                        try db.execute(.dropTable(table))
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

import Foundation

/// Mirrors `NSPersistentStoreDeferredLightweightMigrationOptionKey`. Added with a store (true), a
/// lightweight migration of that store keeps the tables it replaced instead of dropping them (the cleanup
/// Core Data defers) and records the key, true, in the store's metadata until
/// `finishDeferredLightweightMigration()` (or one `finishDeferredLightweightMigrationTask()` per table) has
/// dropped them. The kept tables are named `Z_OCDMIGRATING_<table>`; the next migration of the store drops
/// any that are left before it starts.
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"

extension NSPersistentStoreCoordinator {
    /// Mirrors `finishDeferredLightweightMigration()`: drops every table the deferred migrations of this
    /// coordinator's SQLite stores kept, and removes the metadata key that says work is pending. With nothing
    /// pending it does nothing.
    public func finishDeferredLightweightMigration() throws {
        for store in persistentStores {
            guard let deferring = store.backend as? DeferredMigrationStore else { continue }
            if try deferring.finishDeferredMigration(all: true).dropped { store.noteDeferredMigration(pending: false) }
        }
    }

    /// Mirrors `finishDeferredLightweightMigrationTask()`: drops one table a deferred migration kept (of the
    /// first store that has one); the metadata key goes with the last.
    public func finishDeferredLightweightMigrationTask() throws {
        for store in persistentStores {
            guard let deferring = store.backend as? DeferredMigrationStore else { continue }
            let (dropped, pending) = try deferring.finishDeferredMigration(all: false)
            if dropped {
                store.noteDeferredMigration(pending: pending)
                return
            }
        }
    }
}

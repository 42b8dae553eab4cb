@testable import OpenCoreData

/// Tests that look inside the SQLite store (integrity checks, exact SQL) reach it here: the library
/// itself reaches a store only through its coordinator.
extension NSPersistentStoreCoordinator {
    var sqlite: SQLiteStore {
        get throws { try firstStoreBackend() as! SQLiteStore }
    }
}

extension NSPersistentStoreCoordinator {
    /// The first store added (requests go to the store of their entity).
    func firstStoreBackend() throws -> any StoreBackend {
        guard let store = persistentStores.first else {
            throw CoreDataError(NSPersistentStoreOperationError, "The coordinator has no persistent store.")
        }
        return store.backend
    }
}

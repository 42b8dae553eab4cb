@testable import OpenCoreData

/// Tests that look inside the SQLite store (integrity checks, exact SQL) reach it here: the library
/// itself reaches a store only through its coordinator.
extension NSPersistentStoreCoordinator {
    var sqlite: SQLiteStore {
        get throws { try firstStoreBackend() as! SQLiteStore }
    }
}

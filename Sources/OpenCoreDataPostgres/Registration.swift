import COpenCoreDataPostgresLoad
import Foundation
@_exported import OpenCoreData

/// The PostgreSQL store's type name, beside Core Data's `NSSQLiteStoreType` and `NSInMemoryStoreType`
/// (an OpenCoreData addition: Core Data has no PostgreSQL store). A description whose URL is
/// `postgres://…` opens as this type without naming it.
public let NSPostgreSQLStoreType = "PostgreSQL"

extension NSPersistentStore.StoreType {
    /// The PostgreSQL store, as `NSPersistentStore.StoreType.sqlite` names the SQLite one (an
    /// OpenCoreData addition).
    public static let postgreSQL = NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType)
}

/// Registers the PostgreSQL store type with the library; the C loader in COpenCoreDataPostgresLoad calls
/// it when the program is loaded, so that linking OpenCoreDataPostgres is all an app does. Calling it
/// again changes nothing.
@_cdecl("ocd_postgres_register")
public func _openCoreDataPostgresRegister() {
    PostgresStoreKind.register { url in try PostgresConnectionPool(url: url) }
}

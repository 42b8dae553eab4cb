import Foundation
import OpenCoreData

extension NSPersistentStoreCoordinator {
    /// A coordinator of the seed's current model on the store at `url` (a SQLite file or a PostgreSQL URL), with
    /// persistent history, announcing other coordinators' commits (`NSPersistentStoreRemoteChange`) when `posting`.
    public static func seedStore(at url: URL, posting: Bool) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.makeCurrent())
        var options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true]
        if posting { options[NSPersistentStoreRemoteChangeNotificationPostOptionKey] = true }
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        return coordinator
    }
}

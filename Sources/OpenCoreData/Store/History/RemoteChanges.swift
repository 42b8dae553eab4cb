import Foundation

/// Mirrors `NSPersistentStoreRemoteChangeNotificationPostOptionKey`: a store option (`true` as an
/// `NSNumber`) that makes the coordinator post ``Foundation/NSNotification/Name/NSPersistentStoreRemoteChange``
/// after another coordinator — of this process or another — commits to the same store file.
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"

extension Notification.Name {
    /// Mirrors `NSPersistentStoreRemoteChange`: posted (on a background queue, `object` the coordinator)
    /// when another coordinator committed to a store added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`; `userInfo` holds the store's URL
    /// (`NSPersistentStoreURLKey`), its UUID (`NSStoreUUIDKey`) and, when the store records history, the
    /// token of its last transaction (`NSPersistentHistoryTokenKey`). Several commits close together may
    /// be announced once: fetch the history after the last token you handled.
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

extension NSPersistentStore {
    /// Starts posting ``Foundation/NSNotification/Name/NSPersistentStoreRemoteChange`` for `coordinator`
    /// when others commit to this store (a store that cannot be changed by others, such as one in memory,
    /// posts nothing): the store's URL and UUID, and the token of its last transaction when it keeps history.
    func watchRemoteChanges(for coordinator: NSPersistentStoreCoordinator) throws {
        guard let watching = backend as? RemoteChangeStore else { return }
        let url = url, identifier = watching.identifier
        remoteChangeWatch = try watching.watchRemoteChanges { [weak self, weak coordinator, weak watching] given in
            guard self != nil, let coordinator, let watching else { return }
            var info: [AnyHashable: Any] = [NSStoreUUIDKey: identifier]
            if let url { info[NSPersistentStoreURLKey] = url }
            if let number = given ?? (try? (watching as? HistoryStore)?.lastHistoryNumber()) {
                info[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(storeID: identifier, transactionNumber: number)
            }
            NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
        }
    }
}

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

/// Watches a SQLite store for commits by other connections: SQLite's `PRAGMA data_version` on the
/// store's writer connection changes exactly when another connection (another coordinator, here or in
/// another process) commits, never for the store's own writes. Polled every `interval` (10 ms by
/// default; docs/BatchRequests.md gives the latencies measured) on a queue of its own; stops when the
/// store is removed or goes away.
final class RemoteChangeWatcher: @unchecked Sendable {
    static let defaultInterval = DispatchTimeInterval.milliseconds(10)
    private let timer: DispatchSourceTimer

    init(_ store: NSPersistentStore, coordinator: NSPersistentStoreCoordinator, sqlite: SQLiteStore,
         interval: DispatchTimeInterval = RemoteChangeWatcher.defaultInterval) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "OpenCoreData.RemoteChangeWatcher"))
        var last = try? sqlite.dataVersion()
        let url = store.url, identifier = sqlite.identifier
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(1))
        timer.setEventHandler { [weak store, weak coordinator, weak sqlite, timer] in
            guard store != nil, let coordinator, let sqlite else { timer.cancel(); return }
            guard let version = try? sqlite.dataVersion(), version != last else { return }
            last = version
            var info: [AnyHashable: Any] = [NSStoreUUIDKey: identifier]
            if let url { info[NSPersistentStoreURLKey] = url }
            if let number = try? sqlite.lastHistoryNumber() {
                info[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(storeID: identifier, transactionNumber: number)
            }
            NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
        }
        timer.resume()
    }

    func stop() { timer.cancel() }

    deinit { timer.cancel() }
}

extension SQLiteStore {
    /// `PRAGMA data_version` of the writer connection: it changes when another connection commits.
    func dataVersion() throws -> Int64 {
        var version: Int64 = 0
        try wrap { try write { db in try db.query("PRAGMA data_version") { version = $0.int64(0) } } }
        return version
    }
}

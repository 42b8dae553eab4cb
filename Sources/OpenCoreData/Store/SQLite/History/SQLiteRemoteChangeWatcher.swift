import Foundation

/// Watches a SQLite store for commits by other connections: SQLite's `PRAGMA data_version` on the
/// store's writer connection changes exactly when another connection (another coordinator, here or in
/// another process) commits, never for the store's own writes. Polled every `interval` (10 ms by
/// default; docs/BatchRequests.md gives the latencies measured) on a queue of its own; stops when it is
/// stopped or the store goes away.
final class SQLiteRemoteChangeWatcher: RemoteChangeWatch, @unchecked Sendable {
    static let defaultInterval = DispatchTimeInterval.milliseconds(10)
    private let timer: DispatchSourceTimer

    init(_ sqlite: SQLiteStore, interval: DispatchTimeInterval = SQLiteRemoteChangeWatcher.defaultInterval,
         changed: @escaping @Sendable (Int64?) -> Void) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "OpenCoreData.RemoteChangeWatcher"))
        var last = try? sqlite.dataVersion()
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(1))
        timer.setEventHandler { [weak sqlite, timer] in
            guard let sqlite else { timer.cancel(); return }
            guard let version = try? sqlite.dataVersion(), version != last else { return }
            last = version
            changed(nil)
        }
        timer.resume()
    }

    func stop() { timer.cancel() }

    deinit { timer.cancel() }
}

extension SQLiteStore: RemoteChangeStore {
    /// A file store is watched (``SQLiteRemoteChangeWatcher``); an in-memory one has no other connections.
    func watchRemoteChanges(_ changed: @escaping @Sendable (Int64?) -> Void) throws -> (any RemoteChangeWatch)? {
        guard path != ":memory:" else { return nil }
        return SQLiteRemoteChangeWatcher(self, changed: changed)
    }

    /// `PRAGMA data_version` of the writer connection: it changes when another connection commits.
    func dataVersion() throws -> Int64 {
        var version: Int64 = 0
        try wrap { try write { db in try db.query("PRAGMA data_version") { version = $0.int64(0) } } }
        return version
    }
}

import Foundation

/// Changes across processes and machines: every save that changes rows sends a notice on the store's
/// channel inside its transaction (`pg_notify`, delivered by PostgreSQL when — and only if — the
/// transaction commits); every store that watches `LISTEN`s on it and is told of the others' commits
/// (`NSPersistentStoreRemoteChange`). A watch whose connection was lost says so when it is back, since
/// notices sent meanwhile were missed.
extension PostgresStore: RemoteChangeStore {
    /// The notification channel of the store's schema (at most 63 bytes, PostgreSQL's identifier length).
    var changeChannel: String { "ocd_" + String(schema.prefix(59)) }

    /// Sends the change notice of a save, inside its transaction.
    func noticeChange(_ session: any PostgresSession) throws {
        _ = try run("SELECT pg_notify($1, $2)", [.string(changeChannel), .string(noticeSender)], on: session)
    }

    func watchRemoteChanges(_ changed: @escaping @Sendable () -> Void) throws -> (any RemoteChangeWatch)? {
        let own = noticeSender
        let listening = try wrap {
            try wire.listen(changeChannel, { sender in if sender != own { changed() } }, reconnected: changed)
        }
        return PostgresRemoteChangeWatch(listening)
    }
}

/// A store's running watch for other commits.
final class PostgresRemoteChangeWatch: RemoteChangeWatch {
    private let listening: any PostgresListening

    init(_ listening: any PostgresListening) { self.listening = listening }

    func stop() { listening.stop() }

    deinit { listening.stop() }
}

import Foundation

/// Changes across processes and machines: every save that changes rows sends a notice on the store's
/// channel inside its transaction (`pg_notify`, delivered by PostgreSQL when — and only if — the
/// transaction commits); every store that watches `LISTEN`s on it and is told of the others' commits
/// (`NSPersistentStoreRemoteChange`). The notice's payload is the sender's identity and, when the save
/// recorded history, its transaction number (`<sender> <number>`), which becomes the notification's
/// history token. A watch whose connection was lost says so when it is back (notices sent meanwhile were
/// missed): that notification carries the store's last transaction number, read then.
extension PostgresStore: RemoteChangeStore {
    /// The notification channel of the store's schema (at most 63 bytes, PostgreSQL's identifier length).
    var changeChannel: String { "ocd_" + String(schema.prefix(59)) }

    /// Sends the change notice of a save, inside its transaction.
    func noticeChange(_ session: any PostgresSession, historyNumber: Int64?) throws {
        let payload = noticeSender + (historyNumber.map { " \($0)" } ?? "")
        _ = try run("SELECT pg_notify($1, $2)", [.string(changeChannel), .string(payload)], on: session)
    }

    func watchRemoteChanges(_ changed: @escaping @Sendable (Int64?) -> Void) throws -> (any RemoteChangeWatch)? {
        let own = noticeSender
        let listening = try wrap {
            try wire.listen(changeChannel, { payloads in
                // Commits that came together are told once, with the last one's number.
                let others = payloads.map { $0.split(separator: " ", maxSplits: 1) }.filter { $0.first.map(String.init) != own }
                guard let last = others.last else { return }
                changed(last.count == 2 ? Int64(last[1]) : nil)
            }, reconnected: { changed(nil) })
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

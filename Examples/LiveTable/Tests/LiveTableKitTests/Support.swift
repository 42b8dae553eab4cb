import Foundation
import LiveTableKit

/// A store in a temporary directory, with a gate in verify mode.
struct Fixture {
    let directory: URL
    let store: LiveStore
    let gate: WriteGate
    var url: URL { directory.appendingPathComponent("live.sqlite") }

    init(count: Int = 30, seed: UInt64 = 1) throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("live-table-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try LiveStore(url: directory.appendingPathComponent("live.sqlite"), fresh: true, count: count, seed: seed)
        gate = WriteGate(store: store, verify: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// The row IDs a fresh fetch shows.
    func ids() -> [String] { store.freshTable().flatMap { $0.rows.map(\.id) } }
}

/// Everything a session sent, once it is closed.
func drain(_ session: TableSession, _ gate: WriteGate) async -> [ServerMessage] {
    gate.close(session)
    var all: [ServerMessage] = []
    for await m in session.messages { all.append(m) }
    return all
}

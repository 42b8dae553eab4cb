import Foundation
import Hummingbird
import HummingbirdWebSocket
import LiveTableKit

/// The HTTP endpoints the browser, load and fault tests read:
/// - `GET /verify/snapshots?from=A`: `{"commit": K, "snapshots": {"k": sections, …}}` for k in A...K, each
///   the table a fresh fetch showed right after commit k (with `--verify`; empty without);
/// - `POST /verify/quiesce`: stops the background writers; `{"commit": K}`, the last commit;
/// - `GET /verify/table?sort=name|price&ascending=true|false&search=TEXT`: `{"commit": K, "sections": …}`, a
///   fresh fetch now (in that view's order and filter; by name, everything, without).
struct Verification {
    let gate: WriteGate
    let writers: BackgroundWriters

    func add(to router: Router<BasicWebSocketRequestContext>) {
        router.get("/verify/snapshots") { request, _ in
            let from = request.uri.queryParameters.get("from", as: Int.self) ?? 0
            let last = gate.commit
            var snapshots: [String: [SectionData]] = [:]
            if from <= last { for k in from...last { if let s = gate.snapshot(k) { snapshots[String(k)] = s } } }
            return try json(Snapshots(commit: last, snapshots: snapshots))
        }
        router.post("/verify/quiesce") { _, _ in
            let commit = await writers.stop()
            gate.broadcast(.writers(running: false, count: writers.count))
            return try json(["commit": commit])
        }
        router.get("/verify/table") { request, _ in
            let query = request.uri.queryParameters
            let view = ClientMessage.View(sort: query.get("sort") ?? "name", ascending: query.get("ascending") != "false",
                                          search: query.get("search") ?? "")
            let (commit, sections) = await gate.table(view)
            return try json(Table(commit: commit, sections: sections))
        }
    }

    private struct Snapshots: Encodable {
        let commit: Int
        let snapshots: [String: [SectionData]]
    }

    private struct Table: Encodable {
        let commit: Int
        let sections: [SectionData]
    }

    private func json(_ value: some Encodable) throws -> Response {
        let data = try JSONEncoder().encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

import Foundation
import HummingbirdWebSocket
import LiveTableKit
import NIOCore

/// One page's WebSocket: its session's snapshot and batches go out in order; its messages go to the gate,
/// and an error reply (or, for a message with a `ref`, an ack) comes back on the same socket.
struct Connection {
    let gate: WriteGate
    let writers: BackgroundWriters

    /// Frames and messages over this size close the connection (status 1009); the decoder answers anything
    /// over 16 KiB below it with an error.
    static let maxFrame = 1 << 20

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let session = try await gate.open()
        defer { gate.close(session) }
        if writers.count > 0 { session.send(.writers(running: writers.isRunning, count: writers.count)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in session.messages { try await outbound.write(.text(message.json())) }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: Self.maxFrame) {
                    receive(message, session: session)
                }
            }
            // Either side ending (the page left, or a write failed) ends the connection.
            try await group.next()
            group.cancelAll()
        }
    }

    private func receive(_ message: WebSocketMessage, session: TableSession) {
        let bytes: [UInt8]
        switch message {
        case .text(let text): bytes = Array(text.utf8)
        case .binary(let buffer): bytes = Array(buffer.readableBytesView)
        }
        switch MessageDecoder.decode(bytes) {
        case .failure(let reply): session.send(.error(reply))
        case .success(.begin(let id, let ref)): gate.begin(id, in: session, done: answer(ref, session))
        case .success(.end(let id)): gate.end(id, in: session)
        case .success(.writers(let running)):
            writers.setPaused(!running)
            gate.broadcast(.writers(running: writers.isRunning, count: writers.count))
        case .success(.view(let view)): session.setView(view)
        case .success(let message): gate.submit(message, from: session, done: answer(message.ref, session))
        }
    }

    /// Answers a message with `ref`: an ack with its commit, or the error reply (a conflict has its own
    /// message, sent by the gate).
    private func answer(_ ref: Int?, _ session: TableSession) -> WriteGate.Reply {
        { result in
            switch result {
            case .failure(let reply): if reply.problem != "conflict" { session.send(.error(reply)) }
            case .success(let commit): if let ref { session.send(.ack(ref: ref, commit: commit)) }
            }
        }
    }
}
